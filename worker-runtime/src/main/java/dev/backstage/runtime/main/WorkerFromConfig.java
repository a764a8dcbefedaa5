package dev.backstage.runtime.main;

import dev.backstage.runtime.api.TaskModule;
import dev.backstage.runtime.api.UnknownTaskPolicy;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.config.RuntimeConfig;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.BrokerNames;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.DedupeCapability;
import dev.backstage.runtime.spi.DelaysCapability;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Builds a {@link Worker} from a {@link RuntimeConfig} plus the environment (which carries the broker
 * URLs), with the task modules found on the classpath. Everything it rejects says which field to fix.
 */
public final class WorkerFromConfig {
    private final Function<String, String> env;

    public WorkerFromConfig(Function<String, String> env) {
        this.env = env;
    }

    public record Built(Worker worker, Provider provider, List<String> modules) {}

    public Built build(RuntimeConfig config, Iterable<TaskModule> modules, MeterRegistry meters) {
        if (config.provider() == null) {
            throw new ConfigurationException("runtime config: `provider` is required (name and urlEnv)");
        }
        RuntimeConfig.WorkerSection w = config.worker() == null
                ? new RuntimeConfig.WorkerSection(null, null, null, null, null, null, null, null, null)
                : config.worker();
        checkNames(w);
        Provider provider = Providers.create(settings(config.provider(), "provider", "BACKSTAGE_PROVIDER_URL"));
        Worker.Builder builder = Worker.builder().provider(provider).meterRegistry(meters);
        try {
            if (config.delays() != null) {
                builder.delays(
                        (DelaysCapability) supplied(config.delays(), "delays", "BACKSTAGE_DELAYS_URL", Capable.DELAYS));
            }
            if (config.dedupe() != null) {
                builder.dedupe(
                        (DedupeCapability) supplied(config.dedupe(), "dedupe", "BACKSTAGE_DEDUPE_URL", Capable.DEDUPE));
            }
            if (w.queues() != null && !w.queues().isEmpty()) {
                builder.queues(w.queues());
            }
            if (w.concurrency() != null) {
                builder.concurrency(w.concurrency());
            }
            if (w.prefetch() != null) {
                builder.prefetch(w.prefetch());
            }
            if (w.maxDeliveries() != null) {
                builder.maxDeliveries(w.maxDeliveries());
            }
            if (w.backoff() != null) {
                builder.backoff(backoff(w.backoff()));
            }
            if (w.hardTimeoutMs() != null) {
                builder.hardTimeout(Duration.ofMillis(w.hardTimeoutMs()));
            }
            if (w.shutdownGraceMs() != null) {
                builder.shutdownGrace(Duration.ofMillis(w.shutdownGraceMs()));
            }
            if (w.unknownTask() != null) {
                builder.unknownTasks(unknownTask(w.unknownTask()));
            }
            String podName = env.apply("POD_NAME");
            if (podName != null && !podName.isBlank()) {
                builder.consumerId(podName);
            }
        } catch (RuntimeException e) {
            provider.close();
            throw e;
        }
        Worker worker = builder.build();
        ModuleBinder binder = new ModuleBinder(worker);
        List<String> names = new java.util.ArrayList<>();
        for (TaskModule module : modules) {
            binder.install(module);
            names.add(module.getClass().getName());
        }
        for (RuntimeConfig.TopicSubscription s :
                w.topics() == null ? List.<RuntimeConfig.TopicSubscription>of() : w.topics()) {
            binder.subscribe(s);
        }
        return new Built(worker, provider, names);
    }

    /** Queue, topic and group names by the shared rules, before anything connects. */
    private static void checkNames(RuntimeConfig.WorkerSection w) {
        List<String> queues = w.queues() == null ? List.of() : w.queues();
        for (int i = 0; i < queues.size(); i++) {
            BrokerNames.requireQueue("runtime config: worker.queues[" + i + "]", queues.get(i));
        }
        List<RuntimeConfig.TopicSubscription> topics = w.topics() == null ? List.of() : w.topics();
        for (int i = 0; i < topics.size(); i++) {
            BrokerNames.requireQueue(
                    "runtime config: worker.topics[" + i + "].topic",
                    topics.get(i).topic());
            if (topics.get(i).group() != null) {
                BrokerNames.requireGroup(
                        "runtime config: worker.topics[" + i + "].group",
                        topics.get(i).group());
            }
        }
    }

    public static Iterable<TaskModule> discoverModules() {
        return ServiceLoader.load(TaskModule.class);
    }

    private ProviderSettings settings(RuntimeConfig.Connection c, String role, String defaultEnv) {
        if (c.name() == null) {
            throw new ConfigurationException(
                    "runtime config: `" + role + ".name` is required (redis, rabbitmq or kafka)");
        }
        String url = c.url();
        if (url == null) {
            String variable = c.urlEnv() == null ? defaultEnv : c.urlEnv();
            url = env.apply(variable);
            if (url == null || url.isBlank()) {
                throw new ConfigurationException("runtime config: " + role + " URL expected in environment variable "
                        + variable + " (set it from a Secret), or `" + role + ".url` for local runs");
            }
        }
        return new ProviderSettings(c.name(), url, c.prefix(), c.consumerGroup(), c.options());
    }

    private enum Capable {
        DELAYS,
        DEDUPE
    }

    private Object supplied(RuntimeConfig.Connection c, String role, String defaultEnv, Capable which) {
        Provider backend = Providers.create(settings(c, role, defaultEnv));
        Object capability = which == Capable.DELAYS
                ? backend.delays().orElse(null)
                : backend.dedupe().orElse(null);
        if (capability == null) {
            backend.close();
            throw new ConfigurationException(
                    "runtime config: backend '" + c.name() + "' cannot supply " + role + "; use redis");
        }
        return which == Capable.DELAYS
                ? new OwnedDelays((DelaysCapability) capability, backend)
                : new OwnedDedupe((DedupeCapability) capability, backend);
    }

    static Backoff backoff(RuntimeConfig.BackoffSection b) {
        Backoff.Type type = Backoff.Type.fromWire(b.type() == null ? "exponential" : b.type());
        if (type == null) {
            throw new ConfigurationException(
                    "runtime config: worker.backoff.type must be fixed or exponential, got " + b.type());
        }
        return new Backoff(type, b.delayMs() == null ? 1000 : b.delayMs(), b.maxDelayMs() == null ? 0 : b.maxDelayMs());
    }

    static UnknownTaskPolicy unknownTask(String value) {
        return switch (value) {
            case "dead-letter" -> UnknownTaskPolicy.DEAD_LETTER;
            case "leave-pending" -> UnknownTaskPolicy.LEAVE_PENDING;
            default ->
                throw new ConfigurationException(
                        "runtime config: worker.unknownTask must be dead-letter or leave-pending, got " + value);
        };
    }

    /** A supplied delays capability that closes the backend it was created with. */
    private record OwnedDelays(DelaysCapability delegate, Provider source) implements DelaysCapability, AutoCloseable {
        @Override
        public String backend() {
            return delegate.backend();
        }

        @Override
        public String schedule(dev.backstage.runtime.spi.OutgoingJob job, Instant runAt) {
            return delegate.schedule(job, runAt);
        }

        @Override
        public AutoCloseable startPromotion(dev.backstage.runtime.spi.JobsCapability target) {
            return delegate.startPromotion(target); // the delegate's handle: its Liveness reaches the worker
        }

        @Override
        public void close() {
            source.close();
        }
    }

    /** A supplied dedupe capability that closes the backend it was created with. */
    private record OwnedDedupe(DedupeCapability delegate, Provider source) implements DedupeCapability, AutoCloseable {
        @Override
        public String backend() {
            return delegate.backend();
        }

        @Override
        public boolean tryClaim(String key, Duration ttl) {
            return delegate.tryClaim(key, ttl);
        }

        @Override
        public boolean release(String key) {
            return delegate.release(key);
        }

        @Override
        public void close() {
            source.close();
        }
    }
}
