package dev.backstage.runtime.api;

import dev.backstage.runtime.spi.BackstageException;

/**
 * A call (or the worker's start-up) needs a capability that neither the provider nor a supplied
 * backend offers. The message names the provider, the capability and what to supply.
 */
public final class CapabilityMissingException extends BackstageException {
    private final String provider;
    private final Capability capability;
    private final String hint;

    public CapabilityMissingException(String provider, Capability capability, String hint) {
        super("provider '" + provider + "' does not supply the '" + capability.label() + "' capability: " + hint);
        this.provider = provider;
        this.capability = capability;
        this.hint = hint;
    }

    public String provider() {
        return provider;
    }

    public Capability capability() {
        return capability;
    }

    public String hint() {
        return hint;
    }
}
