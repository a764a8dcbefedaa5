package dev.backstage.e2e.bench;

import dev.backstage.examples.orders.Order;
import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.core.CapabilitySet;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays an {@link ArrivalTrace} into every side's stream at once: each order is enqueued on all sides one after
 * the other (the side that goes first alternates), through the runtime's own producer, at its due time within its
 * second (the orders of a second spread evenly over it).
 */
final class OrderFeed implements AutoCloseable {
    private final List<Provider> providers = new ArrayList<>();
    private final List<JobProducer> producers = new ArrayList<>();

    OrderFeed(String redisUrl, List<Side> sides) {
        for (Side side : sides) {
            Provider provider =
                    Providers.create(new ProviderSettings("redis", redisUrl, side.prefix(), "workers", null));
            providers.add(provider);
            producers.add(new JobProducer(new CapabilitySet(provider, null, null, null), PayloadCodec.defaults()));
        }
    }

    /** Enqueues the trace's orders, second {@code i} starting at {@code startMillis + 1000 i}; returns when done. */
    void replay(ArrivalTrace trace, long startMillis) throws InterruptedException {
        double carry = 0;
        long n = 0;
        for (int second = 0; second < trace.perSecond().length; second++) {
            carry += trace.perSecond()[second];
            int count = (int) Math.floor(carry);
            carry -= count;
            for (int j = 0; j < count; j++) {
                long due = startMillis + second * 1000L + Math.round((j + 0.5) * 1000.0 / count);
                long wait = due - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait); // pacing the load generator, not synchronising with the system under test
                }
                Order order = new Order(trace.name() + "-" + n, 100 + n, "visa");
                for (int k = 0; k < producers.size(); k++) {
                    producers
                            .get((int) ((k + n) % producers.size()))
                            .enqueue("processOrder", order, EnqueueOptions.defaults());
                }
                n++;
            }
        }
        long end = startMillis + trace.perSecond().length * 1000L - System.currentTimeMillis();
        if (end > 0) {
            Thread.sleep(end); // the trace's last (possibly empty) seconds
        }
    }

    @Override
    public void close() {
        providers.forEach(Provider::close);
    }
}
