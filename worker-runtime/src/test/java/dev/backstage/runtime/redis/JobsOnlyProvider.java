package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderHealth;
import dev.backstage.runtime.spi.TopologyDeclarer;

/**
 * A provider that supplies jobs only, like a bare broker would, borrowing a real provider for the mechanics: no
 * delays, dedupe, topics or broadcast. {@link #jobs(JobsCapability)} may wrap the borrowed jobs capability.
 */
class JobsOnlyProvider implements Provider {
    private final Provider inner;

    JobsOnlyProvider(Provider inner) {
        this.inner = inner;
    }

    /** The jobs capability handed out; the borrowed one unless a test changes it. */
    JobsCapability jobs(JobsCapability borrowed) {
        return borrowed;
    }

    @Override
    public String name() {
        return "jobs-only";
    }

    @Override
    public JobsCapability jobs() {
        return jobs(inner.jobs());
    }

    @Override
    public TopologyDeclarer declarer() {
        return inner.declarer();
    }

    @Override
    public BacklogProbe backlogProbe() {
        return inner.backlogProbe();
    }

    @Override
    public DeadLetterQueue deadLetters() {
        return inner.deadLetters();
    }

    @Override
    public ProviderHealth health() {
        return inner.health();
    }

    @Override
    public void close() {
        inner.close();
    }
}
