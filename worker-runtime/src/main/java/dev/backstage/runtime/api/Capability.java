package dev.backstage.runtime.api;

/** What a broker can do for a worker. A provider must supply {@link #JOBS}; the rest may come from elsewhere. */
public enum Capability {
    JOBS("jobs"),
    TOPICS("topics"),
    DELAYS("delays"),
    DEDUPE("dedupe"),
    BROADCAST("broadcast");

    private final String label;

    Capability(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
