package dev.backstage.runtime.core;

import dev.backstage.runtime.api.BroadcastContext;
import dev.backstage.runtime.api.BroadcastHandler;
import dev.backstage.runtime.api.DuplicateTaskException;
import dev.backstage.runtime.api.TopicContext;
import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.spi.TopicDelivery;
import dev.backstage.runtime.spi.TopicSink;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This worker's broadcast handlers, by task name, behind its one broadcast listener. A message for a task this
 * worker has no handler for is acknowledged and skipped: a broadcast goes to every worker of every service, and
 * each takes the tasks it knows (there is nothing to dead-letter — other workers may well handle it). A message
 * with a handler is settled by the topic rule ({@link TopicProcessor}, kind "broadcast").
 */
final class BroadcastRouter implements TopicSink {
    private static final Logger log = LoggerFactory.getLogger(BroadcastRouter.class);

    private final Map<String, TopicSink> handlers = new ConcurrentHashMap<>();
    private final WorkerMetrics metrics;

    BroadcastRouter(WorkerMetrics metrics) {
        this.metrics = metrics;
    }

    /** {@code processor} builds the settling sink for a topic-shaped handler. */
    <T> void register(String task, BroadcastHandler<T> handler, Function<TopicHandler<T>, TopicSink> processor) {
        if (task == null || task.isBlank()) {
            throw new IllegalArgumentException("broadcast task name must not be blank");
        }
        TopicHandler<T> adapted = (context, payload) -> handler.handle(new Context(context), payload);
        if (handlers.putIfAbsent(task, processor.apply(adapted)) != null) {
            throw new DuplicateTaskException("broadcast:" + task);
        }
    }

    boolean isEmpty() {
        return handlers.isEmpty();
    }

    List<String> tasks() {
        return handlers.keySet().stream().sorted().toList();
    }

    @Override
    public void accept(TopicDelivery delivery) {
        if (delivery.malformedReason().isPresent()) {
            log.warn(
                    "broadcast message {} dropped: {}",
                    delivery.messageId(),
                    delivery.malformedReason().get());
            metrics.deadLettered();
            settleQuietly(delivery, "drop");
            return;
        }
        TopicSink sink = handlers.get(delivery.topic());
        if (sink == null) {
            log.debug(
                    "broadcast message {} for task '{}' skipped: no handler on this worker",
                    delivery.messageId(),
                    delivery.topic());
            settleQuietly(delivery, "ack");
            return;
        }
        sink.accept(delivery);
    }

    private static void settleQuietly(TopicDelivery delivery, String what) {
        try {
            (what.equals("drop") ? delivery.drop("malformed") : delivery.ack()).whenComplete((ok, error) -> {
                if (error != null) {
                    log.warn("{} of broadcast message {} failed: {}", what, delivery.messageId(), error.toString());
                }
            });
        } catch (RuntimeException e) {
            log.warn("{} of broadcast message {} failed: {}", what, delivery.messageId(), e.toString());
        }
    }

    private record Context(TopicContext topic) implements BroadcastContext {
        @Override
        public String task() {
            return topic.topic();
        }

        @Override
        public String messageId() {
            return topic.messageId();
        }

        @Override
        public int deliveryCount() {
            return topic.deliveryCount();
        }

        @Override
        public Instant sentAt() {
            return topic.publishedAt();
        }
    }
}
