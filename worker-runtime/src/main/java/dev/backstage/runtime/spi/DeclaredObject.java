package dev.backstage.runtime.spi;

/**
 * One broker object and what happened to it.
 *
 * @param kind   e.g. {@code stream}, {@code consumer-group}, {@code queue}, {@code exchange}, {@code topic}
 * @param name   the broker-side name
 */
public record DeclaredObject(String kind, String name, State state, String detail) {
    public enum State {
        CREATED,
        EXISTED,
        MISSING,
        DELETED,
        FAILED
    }

    public static DeclaredObject of(String kind, String name, State state) {
        return new DeclaredObject(kind, name, state, null);
    }
}
