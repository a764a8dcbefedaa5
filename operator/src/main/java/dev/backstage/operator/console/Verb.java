package dev.backstage.operator.console;

/** What a console request asks of a custom resource: {@code get} to read it, {@code update} to act on it. */
public enum Verb {
    GET("get"),
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
