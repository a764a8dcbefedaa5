package dev.backstage.runtime.redis;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.Worker;
import dev.backstage.runtime.spi.Backoff;
import io.lettuce.core.Range;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.StreamMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The golden records of docs/wire-format.md, written by the Java producer exactly as specified, and seed-written
 * records (TS and Go variants) read back correctly.
 */
@Tag("broker")
class RedisWireFormatTest {
    record Order(String orderId) {}

    private final RedisTestSupport redis = new RedisTestSupport();
    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        workers.forEach(Worker::close);
        redis.close();
    }

    private Worker worker() {
        Worker worker = Worker.builder()
                .provider(redis.provider())
                .queues("default", "urgent", "emails")
                .backoff(Backoff.fixed(Duration.ofMillis(20)))
                .build();
        workers.add(worker);
        return worker;
    }

    private static String fieldsInOrder(StreamMessage<String, String> m) {
        return m.getBody().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
    }

    @Test
    void givenAPlainEnqueue_thenTheEntryIsTheSeedsThreeFieldsInTsOrder() {
        worker().enqueue("order.process", Map.of("orderId", "o1"));
        StreamMessage<String, String> m = redis.redis()
                .xrange(redis.prefix() + ":default", Range.create("-", "+"))
                .get(0);
        String enqueuedAt = m.getBody().get("enqueuedAt");
        assertEquals("taskName=order.process payload={\"orderId\":\"o1\"} enqueuedAt=" + enqueuedAt, fieldsInOrder(m));
        assertTrue(enqueuedAt.matches("\\d{13}"), enqueuedAt);
    }

    @Test
    void givenOptions_thenAttemptsBackoffWithExplicitMaxDelayAndTimeoutFollow() {
        worker().enqueue(
                        "order.process",
                        Map.of("orderId", "o2"),
                        EnqueueOptions.onQueue("urgent")
                                .attempts(3)
                                .backoff(Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30)))
                                .timeout(Duration.ofSeconds(10)));
        StreamMessage<String, String> m = redis.redis()
                .xrange(redis.prefix() + ":urgent", Range.create("-", "+"))
                .get(0);
        assertEquals(
                "taskName=order.process payload={\"orderId\":\"o2\"} enqueuedAt="
                        + m.getBody().get("enqueuedAt")
                        + " attempts=3 backoff={\"type\":\"exponential\",\"delay\":1000,\"maxDelay\":30000} timeout=10000",
                fieldsInOrder(m));
    }

    @Test
    void givenZeroAttemptsAndTimeout_thenTheyAreOmitted() {
        worker().enqueue("t", Map.of(), EnqueueOptions.defaults().attempts(0).timeout(Duration.ZERO));
        Map<String, String> body = redis.redis()
                .xrange(redis.prefix() + ":default", Range.create("-", "+"))
                .get(0)
                .getBody();
        assertEquals(List.of("taskName", "payload", "enqueuedAt"), List.copyOf(body.keySet()));
    }

    @Test
    void givenABackoffWithoutCap_thenAnExplicitPositiveMaxDelayIsWritten() {
        worker().enqueue("t", Map.of(), EnqueueOptions.defaults().backoff(Backoff.fixed(Duration.ofMillis(500))));
        Map<String, String> body = redis.redis()
                .xrange(redis.prefix() + ":default", Range.create("-", "+"))
                .get(0)
                .getBody();
        assertEquals("{\"type\":\"fixed\",\"delay\":500,\"maxDelay\":3600000}", body.get("backoff"));
    }

    @Test
    void givenAScheduleOnACustomQueue_thenTheMemberMatchesTheProfile() {
        EnqueueResult result = worker().schedule(
                        "later2",
                        Map.of("x", 2),
                        Duration.ofMinutes(5),
                        EnqueueOptions.onQueue("emails").attempts(2).backoff(Backoff.fixed(Duration.ofMillis(500))));
        List<ScoredValue<String>> members = redis.redis().zrangeWithScores(redis.prefix() + ":scheduled", 0, -1);
        assertEquals(1, members.size());
        long score = (long) members.get(0).getScore();
        assertEquals("scheduled:" + score, result.id());
        String member = members.get(0).getValue();
        String enqueuedAt = member.replaceAll(".*\"enqueuedAt\":(\\d+).*", "$1");
        assertEquals(
                "{\"taskName\":\"later2\",\"payload\":\"{\\\"x\\\":2}\",\"enqueuedAt\":" + enqueuedAt
                        + ",\"streamKey\":\"" + redis.prefix() + ":emails\",\"priority\":\"emails\",\"attempts\":2,"
                        + "\"backoff\":\"{\\\"type\\\":\\\"fixed\\\",\\\"delay\\\":500,\\\"maxDelay\\\":3600000}\"}",
                member);
    }

    @Test
    void givenADedupeTtlOfOneAndAHalfSeconds_thenTheMarkerHoldsFifteenHundredMillisecondsAsTheSeedStoresIt() {
        worker().enqueue("t", Map.of(), EnqueueOptions.defaults().dedupe("order-42", Duration.ofMillis(1500)));
        assertEquals("1", redis.redis().get(redis.prefix() + ":dedupe:order-42"));
        long pttl = redis.redis().pttl(redis.prefix() + ":dedupe:order-42");
        assertTrue(pttl > 1000 && pttl <= 1500, "PX 1500, got PTTL " + pttl);
    }

    @Test
    void givenSeedWrittenEntries_thenTheJavaWorkerRunsThemWithTheirOptions() {
        Worker worker = worker();
        List<String> seen = new CopyOnWriteArrayList<>();
        worker.register("order.process", Order.class, (ctx, order) -> {
            seen.add(order.orderId() + " attempts=" + ctx.meta().attempts() + " timeout="
                    + ctx.meta().timeoutMs() + " backoff="
                    + (ctx.meta().backoff() == null
                            ? null
                            : ctx.meta().backoff().delayMs()));
            return Next.done();
        });
        worker.start();
        // TS golden line (docs/wire-format.md)
        redis.redis()
                .xadd(
                        redis.prefix() + ":urgent",
                        "taskName",
                        "order.process",
                        "payload",
                        "{\"orderId\":\"o2\"}",
                        "enqueuedAt",
                        "1718900000000",
                        "attempts",
                        "3",
                        "backoff",
                        "{\"type\":\"exponential\",\"delay\":1000,\"maxDelay\":30000}",
                        "timeout",
                        "10000");
        // Go golden line: random field order, maxDelay 0
        redis.redis()
                .xadd(
                        redis.prefix() + ":urgent",
                        "enqueuedAt",
                        "1718900000000",
                        "backoff",
                        "{\"type\":\"exponential\",\"delay\":1000,\"maxDelay\":0}",
                        "taskName",
                        "order.process",
                        "attempts",
                        "3",
                        "payload",
                        "{\"orderId\":\"o3\"}",
                        "timeout",
                        "10000");
        // A TS custom-queue line with an unknown extra field, which readers ignore
        redis.redis()
                .xadd(
                        redis.prefix() + ":emails",
                        "taskName",
                        "order.process",
                        "payload",
                        "{\"orderId\":\"o4\"}",
                        "enqueuedAt",
                        "1718900000000",
                        "traceparent",
                        "00-abc");

        await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == 3);
        assertTrue(
                seen.containsAll(List.of(
                        "o2 attempts=3 timeout=10000 backoff=1000",
                        "o3 attempts=3 timeout=10000 backoff=1000",
                        "o4 attempts=null timeout=null backoff=null")),
                seen.toString());
    }

    @Test
    void givenSeedDelayMembers_thenThePromotionScriptPutsThemOnTheRightStreams() {
        Worker worker = worker();
        List<String> seen = new CopyOnWriteArrayList<>();
        worker.register("later", Map.class, (ctx, p) -> {
            seen.add(ctx.queue() + ":" + p.get("x"));
            return Next.done();
        });
        worker.register("later2", Map.class, (ctx, p) -> {
            seen.add(ctx.queue() + ":" + p.get("x") + ":attempts=" + ctx.meta().attempts());
            return Next.done();
        });
        worker.start();
        String key = redis.prefix() + ":scheduled";
        // TS master member (priority "default" even for a custom queue: streamKey wins)
        redis.redis()
                .zadd(
                        key,
                        1718900005000d,
                        "{\"taskName\":\"later2\",\"payload\":\"{\\\"x\\\":2}\",\"enqueuedAt\":1718900000000,"
                                + "\"streamKey\":\"" + redis.prefix()
                                + ":emails\",\"priority\":\"default\",\"attempts\":2,"
                                + "\"backoff\":\"{\\\"type\\\":\\\"fixed\\\",\\\"delay\\\":500}\"}");
        // Go member with no streamKey: priority decides
        redis.redis()
                .zadd(
                        key,
                        1718900005000d,
                        "{\"enqueuedAt\":1718900000000,\"payload\":\"{\\\"x\\\":1}\","
                                + "\"priority\":\"urgent\",\"taskName\":\"later\"}");

        await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == 2);
        assertTrue(seen.containsAll(List.of("emails:2:attempts=2", "urgent:1")), seen.toString());
        StreamMessage<String, String> promoted = redis.redis()
                .xrange(redis.prefix() + ":emails", Range.create("-", "+"))
                .get(0);
        assertEquals("1718900000000", promoted.getBody().get("enqueuedAt"), "the original enqueue time is kept");
    }

    @Test
    void givenADeadLetter_thenTheEntryCarriesTheProfileFieldsAndTheOriginalPayloadByteForByte() {
        Worker worker = Worker.builder()
                .provider(redis.provider())
                .queues("emails")
                .maxDeliveries(1)
                .backoff(Backoff.fixed(Duration.ofMillis(10)))
                .build();
        workers.add(worker);
        worker.register("email.send", Map.class, (ctx, p) -> {
            throw new RuntimeException("boom");
        });
        worker.start();
        String id = redis.redis()
                .xadd(
                        redis.prefix() + ":emails",
                        "taskName",
                        "email.send",
                        "payload",
                        "{ \"to\" : \"x@y.z\" }",
                        "enqueuedAt",
                        "1718900000000");

        String dlq = redis.prefix() + ":emails:dead-letter";
        await().atMost(Duration.ofSeconds(60)).until(() -> redis.redis().xlen(dlq) == 1);
        StreamMessage<String, String> m =
                redis.redis().xrange(dlq, Range.create("-", "+")).get(0);
        Map<String, String> b = m.getBody();
        assertEquals(
                List.of("taskName", "payload", "enqueuedAt", "originalId", "deliveryCount", "deadLetteredAt", "error"),
                List.copyOf(b.keySet()));
        assertEquals("{ \"to\" : \"x@y.z\" }", b.get("payload"));
        assertEquals("1718900000000", b.get("enqueuedAt"));
        assertEquals(id, b.get("originalId"));
        assertEquals("2", b.get("deliveryCount"));
        assertEquals("RuntimeException: boom", b.get("error"));
        assertEquals(
                0,
                redis.redis()
                        .xpending(redis.prefix() + ":emails", "backstage-workers")
                        .getCount(),
                "the source stream is acked");
    }

    @Test
    void givenAnInitMarkerEntry_thenItIsAckedAndSkipped() {
        Worker worker = worker();
        List<String> seen = new CopyOnWriteArrayList<>();
        worker.register("t", Map.class, (ctx, p) -> {
            seen.add(ctx.jobId());
            return Next.done();
        });
        worker.start();
        redis.redis().xadd(redis.prefix() + ":default", "_init", "1");
        String real =
                redis.redis().xadd(redis.prefix() + ":default", "taskName", "t", "payload", "{}", "enqueuedAt", "1");

        await().atMost(Duration.ofSeconds(60)).until(() -> seen.contains(real));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> redis.redis()
                                .xpending(redis.prefix() + ":default", "backstage-workers")
                                .getCount()
                        == 0);
        assertEquals(0, redis.redis().xlen(redis.prefix() + ":default:dead-letter"));
    }
}
