package dev.backstage.runtime.spi;

/** Whether the broker connection is usable now, with a human-readable detail when it is not. */
public record ProviderHealth(boolean up, String detail) {
    public static ProviderHealth ok() {
        return new ProviderHealth(true, "connected");
    }

    public static ProviderHealth down(String detail) {
        return new ProviderHealth(false, detail);
    }
}
