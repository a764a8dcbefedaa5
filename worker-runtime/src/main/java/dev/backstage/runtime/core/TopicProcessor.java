package dev.backstage.runtime.core;

import dev.backstage.runtime.api.TopicContext;
import dev.backstage.runtime.api.TopicHandler;
import dev.backstage.runtime.spi.TopicDelivery;
import dev.backstage.runtime.spi.TopicSink;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs one subscription's handler: ack on success, fail (redelivery up to max deliveries) otherwise. */
final class TopicProcessor<T> implements TopicSink {
    private static final Logger log = LoggerFactory.getLogger(TopicProcessor.class);

    private final Class<T> payloadType;
    private final TopicHandler<T> handler;
    private final PayloadCodec codec;
    private final InFlightGate gate;
    private final ExecutorService handlers;

    TopicProcessor(Class<T> payloadType, TopicHandler<T> handler, PayloadCodec codec, InFlightGate gate,
            ExecutorService handlers) {
        this.payloadType = payloadType;
        this.handler = handler;
        this.codec = codec;
        this.gate = gate;
        this.handlers = handlers;
    }

    @Override
    public void accept(TopicDelivery delivery) {
        gate.occupy();
        try {
            handlers.execute(() -> run(delivery));
        } catch (RejectedExecutionException e) {
            gate.release();
        }
    }

    private void run(TopicDelivery delivery) {
        try {
            T payload = codec.decode(delivery.payloadJson(), payloadType);
            handler.handle(context(delivery), payload);
            delivery.ack();
        } catch (Exception e) {
            log.warn("topic '{}' message {} failed (delivery {}): {}", delivery.topic(), delivery.messageId(),
                    delivery.deliveryCount(), DeliveryProcessor.describe(e));
            delivery.fail(DeliveryProcessor.describe(e));
        } finally {
            gate.release();
            Thread.interrupted();
        }
    }

    private static TopicContext context(TopicDelivery delivery) {
        return new TopicContext() {
            @Override
            public String topic() {
                return delivery.topic();
            }

            @Override
            public String messageId() {
                return delivery.messageId();
            }

            @Override
            public int deliveryCount() {
                return delivery.deliveryCount();
            }

            @Override
            public Instant publishedAt() {
                return Instant.ofEpochMilli(delivery.publishedAtMs());
            }
        };
    }
}
