package dev.backstage.runtime.spi;

/** Base of every error the runtime raises on purpose; the message always says what to change. */
public class BackstageException extends RuntimeException {
    public BackstageException(String message) {
        super(message);
    }

    public BackstageException(String message, Throwable cause) {
        super(message, cause);
    }
}
