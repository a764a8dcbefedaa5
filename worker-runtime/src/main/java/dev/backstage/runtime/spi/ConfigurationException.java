package dev.backstage.runtime.spi;

/** Invalid worker or provider configuration, found before anything touches a broker. */
public final class ConfigurationException extends BackstageException {
    public ConfigurationException(String message) {
        super(message);
    }

    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
