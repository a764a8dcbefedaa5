package dev.backstage.operator.console;

/**
 * What a console request asks: {@code get} to read a custom resource, {@code update} to act on it, {@code list} to
 * read the Events of its namespace.
 */
public enum Verb {
    GET("get"),
    LIST("list"),
    UPDATE("update");

    private final String rbac;

    Verb(String rbac) {
        this.rbac = rbac;
    }

    /** The verb as RBAC names it. */
    public String rbac() {
        return rbac;
    }
}
