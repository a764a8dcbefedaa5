package dev.backstage.runtime.core;

import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.api.WorkerFactory;
import dev.backstage.runtime.api.WorkerOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The runtime's {@link WorkerFactory} (registered in {@code META-INF/services}): a worker on a {@link WorkerEngine}. */
public final class EngineWorkerFactory implements WorkerFactory {
    @Override
    public Worker create(WorkerOptions o) {
        TaskRegistry registry = new TaskRegistry();
        PayloadCodec codec = o.objectMapper() == null ? PayloadCodec.defaults() : new PayloadCodec(o.objectMapper());
        CapabilitySet capabilities = new CapabilitySet(o.provider(), o.delays(), o.dedupe(), o.topics(), o.broadcast());
        WorkerSettings settings = new WorkerSettings(
                o.queues(),
                o.consumerId(),
                o.concurrency(),
                o.prefetch(),
                o.maxDeliveries(),
                o.backoff(),
                o.shutdownGrace(),
                o.unknownTaskPolicy(),
                o.hardTimeout());
        WorkerEngine engine = new WorkerEngine(
                o.provider(),
                capabilities,
                settings,
                registry,
                codec,
                o.meterRegistry() == null ? new SimpleMeterRegistry() : o.meterRegistry(),
                o.owned());
        return new EngineWorker(registry, engine);
    }
}
