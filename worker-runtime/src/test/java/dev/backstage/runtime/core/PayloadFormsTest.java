package dev.backstage.runtime.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.api.UnknownTaskPolicy;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.Payload;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The core reaches a payload through one accessor, {@link Delivery#payload()}, and decodes it once from the form the
 * provider holds ({@link Payload}): the core's parsed tokens ({@link JsonTokens}, core-side so the {@code spi}
 * carries no Jackson) or the value bound in the provider's one pass, the bytes, or the text. The deliveries below
 * carry a different value in {@link Delivery#payloadJson()} than in their payload's form, so the handler's value
 * shows which one was decoded.
 */
class PayloadFormsTest {
    record Point(int n) {}

    private final PayloadCodec codec = PayloadCodec.defaults();
    private final BlockingQueue<Object> handled = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> acked = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> deadLettered = new LinkedBlockingQueue<>();
    private final ExecutorService handlers = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    private final DeliveryProcessor processor;

    PayloadFormsTest() {
        TaskRegistry registry = new TaskRegistry();
        registry.register("point", Point.class, TaskOptions.defaults(), (context, point) -> {
            handled.add(point);
            return Next.done();
        });
        InFlightGate gate = new InFlightGate(8);
        processor = new DeliveryProcessor(
                registry,
                new RetryPolicy(5, Backoff.fixed(Duration.ofSeconds(1))),
                codec,
                null,
                gate,
                handlers,
                watchdog,
                handlers,
                new WorkerMetrics(new SimpleMeterRegistry(), gate::inFlight),
                UnknownTaskPolicy.DEAD_LETTER,
                null);
    }

    @AfterEach
    void stop() {
        handlers.shutdownNow();
        watchdog.shutdownNow();
    }

    @Test
    void givenAProviderThatReadTheTokens_whenProcessed_thenTheTokensAreBoundNotTheText() throws Exception {
        processor.accept(new TokenDelivery("d1", "{\"n\":1}", "{\"n\":3}"));
        assertEquals(new Point(3), handled.poll(30, TimeUnit.SECONDS));
        assertEquals("d1", acked.poll(30, TimeUnit.SECONDS));
    }

    @Test
    void givenAProviderThatBindsInItsOnePass_whenProcessed_thenItIsAskedWithTheTaskNameAndItsValueIsUsed()
            throws Exception {
        BindingDelivery d = new BindingDelivery("d4", "{\"n\":1}", "{\"n\":3}", "{\"n\":4}");
        processor.accept(d);
        assertEquals(new Point(4), handled.poll(30, TimeUnit.SECONDS));
        assertEquals("d4", acked.poll(30, TimeUnit.SECONDS));
        assertEquals("point", d.askedFor);
    }

    @Test
    void givenAProviderWhoseOnePassDidNotBind_whenProcessed_thenItsTokensAreBoundAsBefore() throws Exception {
        processor.accept(new BindingDelivery("d5", "{\"n\":1}", "{\"n\":3}", null));
        assertEquals(new Point(3), handled.poll(30, TimeUnit.SECONDS));
        assertEquals("d5", acked.poll(30, TimeUnit.SECONDS));
    }

    @Test
    void givenAProviderThatHoldsBytes_whenProcessed_thenTheBytesAreBound() throws Exception {
        processor.accept(new TextDelivery("d2", "{\"n\":1}", "{\"n\":2}"));
        assertEquals(new Point(2), handled.poll(30, TimeUnit.SECONDS));
        assertEquals("d2", acked.poll(30, TimeUnit.SECONDS));
    }

    @Test
    void givenOnlyText_whenProcessed_thenTheTextIsBound() throws Exception {
        processor.accept(new TextDelivery("d3", "{\"n\":1}", null));
        assertEquals(new Point(1), handled.poll(30, TimeUnit.SECONDS));
        assertEquals("d3", acked.poll(30, TimeUnit.SECONDS));
        assertNull(handled.poll());
    }

    @Test
    void givenReadOnlyBytes_whenProcessed_thenTheyAreCopiedOnceAndBound() throws Exception {
        processor.accept(new TextDelivery("d8", "{\"n\":1}", null) {
            @Override
            public Payload payload() {
                return new Payload.Bytes(slice("[\"record\",{\"n\":8}]", 10, 7).asReadOnlyBuffer());
            }
        });
        assertEquals(new Point(8), handled.poll(30, TimeUnit.SECONDS));
        assertEquals("d8", acked.poll(30, TimeUnit.SECONDS));
    }

    @Test
    void givenAParsedFormThatIsNotTheCores_whenProcessed_thenItsTextIsBound() throws Exception {
        processor.accept(new TextDelivery("d6", "{\"n\":1}", null) {
            @Override
            public Payload payload() {
                return (Payload.Parsed) () -> "{\"n\":6}";
            }
        });
        assertEquals(new Point(6), handled.poll(30, TimeUnit.SECONDS));
        assertEquals("d6", acked.poll(30, TimeUnit.SECONDS));
    }

    @Test
    void givenTokensThatDoNotFitTheType_whenProcessed_thenItIsDeadLetteredWithTheReasonFromTheText() throws Exception {
        processor.accept(new TokenDelivery("d7", "{\"n\":\"seven\"}", "{\"n\":\"seven\"}"));
        String reason = deadLettered.poll(30, TimeUnit.SECONDS);
        assertNotNull(reason, "dead-lettered");
        assertTrue(reason.startsWith("payload cannot be read as Point"), reason);
        assertTrue(reason.contains("(payload: {\"n\":\"seven\"})"), reason);
        assertNull(handled.poll());
    }

    /** A delivery held in memory, as a provider would decode it; the test records its acks. */
    private class TextDelivery implements Delivery {
        private final String id;
        private final String text;
        private final String bytes;

        TextDelivery(String id, String text, String bytes) {
            this.id = id;
            this.text = text;
            this.bytes = bytes;
        }

        @Override
        public String queue() {
            return "default";
        }

        @Override
        public String taskName() {
            return "point";
        }

        @Override
        public String payloadJson() {
            return text;
        }

        @Override
        public Payload payload() {
            return bytes == null
                    ? new Payload.Text(text)
                    : new Payload.Bytes(slice("[\"record\"," + bytes + "]", 10, bytes.length()));
        }

        @Override
        public long enqueuedAtMs() {
            return System.currentTimeMillis();
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
            return id;
        }

        @Override
        public String deliveryId() {
            return id;
        }

        @Override
        public CompletionStage<Void> ack() {
            acked.add(id);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> retry(Duration delay, String error) {
            return CompletableFuture.failedFuture(new AssertionError("retried: " + error));
        }

        @Override
        public CompletionStage<Void> deadLetter(String error) {
            deadLettered.add(error);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void abandon() {
            throw new AssertionError("abandoned");
        }
    }

    /** Offers the core's parsed form: tokens read in its "pass" ({@code tokens}), the text only for reasons. */
    private class TokenDelivery extends TextDelivery {
        private final String tokens;

        TokenDelivery(String id, String text, String tokens) {
            super(id, text, null);
            this.tokens = tokens;
        }

        @Override
        public Payload payload() {
            return new JsonTokens() {
                @Override
                protected JsonParser tokens() {
                    return parser(tokens); // unpositioned, as TokenBuffer.asParser()
                }

                @Override
                protected Object readBinding(Binder binder) {
                    return TokenDelivery.this.readBinding(binder);
                }

                @Override
                public String json() {
                    return payloadJson();
                }
            };
        }

        Object readBinding(JsonTokens.Binder binder) {
            return JsonTokens.NOT_BOUND;
        }
    }

    /** {@code length} bytes at {@code offset} of {@code record}, as a provider's slice of its record. */
    private static ByteBuffer slice(String record, int offset, int length) {
        return ByteBuffer.wrap(record.getBytes(StandardCharsets.UTF_8), offset, length);
    }

    private JsonParser parser(String json) {
        try {
            return codec.mapper().getFactory().createParser(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads its "record" once through the core's binder (null {@code inPass}: the pass binds nothing). */
    private final class BindingDelivery extends TokenDelivery {
        private final String inPass;
        volatile String askedFor;

        BindingDelivery(String id, String text, String tokens, String inPass) {
            super(id, text, tokens);
            this.inPass = inPass;
        }

        @Override
        Object readBinding(JsonTokens.Binder binder) {
            if (inPass == null) {
                return JsonTokens.NOT_BOUND;
            }
            askedFor = taskName();
            try (JsonParser p = parser(inPass)) {
                p.nextToken(); // on the payload's first token, as the provider's pass is
                return binder.bind(taskName(), p);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
