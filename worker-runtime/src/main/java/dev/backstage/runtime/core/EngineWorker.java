package dev.backstage.runtime.core;

import dev.backstage.runtime.api.BroadcastHandler;
import dev.backstage.runtime.api.Producer;
import dev.backstage.runtime.api.TaskHandler;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.api.WorkerTotals;
import dev.backstage.runtime.spi.Subscription;
import java.util.Optional;

/** The {@link Worker} users hold: the task registry plus the {@link WorkerEngine} that consumes and settles. */
final class EngineWorker implements Worker {
    private final TaskRegistry registry;
    private final WorkerEngine engine;

    EngineWorker(TaskRegistry registry, WorkerEngine engine) {
        this.registry = registry;
        this.engine = engine;
    }

    @Override
    public <T> Worker register(String taskName, Class<T> payloadType, TaskOptions options, TaskHandler<T> handler) {
        registry.register(taskName, payloadType, options, handler);
        return this;
    }

    @Override
    public <T> Worker subscribe(Subscription subscription, Class<T> payloadType, TopicHandler<T> handler) {
        engine.subscribe(subscription, payloadType, handler);
        return this;
    }

    @Override
    public String publish(String topic, Object payload) {
        return engine.publish(topic, payload);
    }

    @Override
    public String broadcast(String task, Object payload) {
        return engine.broadcast(task, payload);
    }

    @Override
    public <T> Worker onBroadcast(String task, Class<T> payloadType, BroadcastHandler<T> handler) {
        engine.onBroadcast(task, payloadType, handler);
        return this;
    }

    @Override
    public Worker start() {
        engine.start();
        return this;
    }

    @Override
    public void run() throws InterruptedException {
        Thread hook = new Thread(engine::shutdown, "backstage-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        engine.run();
    }

    @Override
    public boolean isRunning() {
        return engine.isRunning();
    }

    @Override
    public Optional<String> failure() {
        return engine.failure();
    }

    @Override
    public int inFlight() {
        return engine.inFlight();
    }

    @Override
    public WorkerTotals totals() {
        return engine.metrics().totals();
    }

    @Override
    public String capabilityReport() {
        return engine.capabilities().report();
    }

    @Override
    public Producer producer() {
        return engine.producer();
    }

    @Override
    public void close() {
        engine.shutdown();
    }
}
