package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.ConsumerSettings;
import dev.backstage.runtime.spi.DeadLetterQueue;
import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.DeliverySink;
import dev.backstage.runtime.spi.JobConsumer;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.JobsCapability;
import dev.backstage.runtime.spi.OutgoingJob;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderHealth;
import dev.backstage.runtime.spi.TopologyDeclarer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Benchmark yardstick only: a "provider" that makes {@code count} no-op deliveries in memory as fast as
 * the worker's in-flight allowance lets it, so {@link KafkaThroughputBenchmark} can show what the worker
 * core alone sustains. Not a broker stand-in: no test uses it, and it supports nothing but consuming.
 */
final class InMemoryJobs implements Provider, JobsCapability {
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    private final int count;

    InMemoryJobs(int count) {
        this.count = count;
    }

    @Override
    public String name() {
        return "in-memory";
    }

    @Override
    public JobsCapability jobs() {
        return this;
    }

    @Override
    public String publish(OutgoingJob job) {
        throw new UnsupportedOperationException("benchmark yardstick: consume only");
    }

    @Override
    public List<String> defaultQueues() {
        return List.of("jobs");
    }

    @Override
    public JobConsumer consume(ConsumerSettings settings, DeliverySink sink) {
        Thread feeder = new Thread(() -> {
            int made = 0;
            try {
                while (made < count && !settings.flow().stopping()) {
                    int free = settings.flow().awaitFree(Math.max(1, settings.flow().capacity() / 4), Duration.ofMillis(100));
                    for (int i = 0; i < free && made < count; i++) {
                        sink.accept(new NoOpDelivery(made++));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "in-memory-feeder");
        feeder.setDaemon(true);
        feeder.start();
        return new JobConsumer() {
            @Override
            public void stopFetching() {
                feeder.interrupt();
            }

            @Override
            public void close() {
                feeder.interrupt();
            }
        };
    }

    @Override
    public TopologyDeclarer declarer() {
        throw new UnsupportedOperationException("benchmark yardstick: consume only");
    }

    @Override
    public BacklogProbe backlogProbe() {
        throw new UnsupportedOperationException("benchmark yardstick: consume only");
    }

    @Override
    public DeadLetterQueue deadLetters() {
        throw new UnsupportedOperationException("benchmark yardstick: consume only");
    }

    @Override
    public ProviderHealth health() {
        return ProviderHealth.ok();
    }

    @Override
    public void close() {}

    private record NoOpDelivery(int n) implements Delivery {
        @Override
        public String queue() {
            return "jobs";
        }

        @Override
        public String taskName() {
            return "noop";
        }

        @Override
        public String payloadJson() {
            return "{\"n\":" + n + "}";
        }

        @Override
        public long enqueuedAtMs() {
            return 0;
        }

        @Override
        public JobMeta meta() {
            return JobMeta.NONE;
        }

        @Override
        public int deliveryCount() {
            return 1;
        }

        @Override
        public String jobId() {
            return "job-" + n;
        }

        @Override
        public String deliveryId() {
            return "memory:" + n;
        }

        @Override
        public CompletionStage<Void> ack() {
            return DONE;
        }

        @Override
        public CompletionStage<Void> retry(Duration delay, String error) {
            return DONE;
        }

        @Override
        public CompletionStage<Void> deadLetter(String error) {
            return DONE;
        }

        @Override
        public void abandon() {}
    }
}
