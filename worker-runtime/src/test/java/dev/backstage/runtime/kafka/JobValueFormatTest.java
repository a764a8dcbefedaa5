package dev.backstage.runtime.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Kafka job value and dead-letter value formats (docs/wire-format.md), through the three codecs that write and
 * read them: {@link JobValueEncoder}, {@link JobValueDecoder} and {@link DeadLetterValueCodec}.
 */
class JobValueFormatTest {
    private final JobValueEncoder encoder = new JobValueEncoder();
    private final JobValueDecoder decoder = new JobValueDecoder();
    private final DeadLetterValueCodec deadLetters = new DeadLetterValueCodec();

    private JobValue valid(String json) {
        return assertInstanceOf(JobValueDecoder.Valid.class, decoder.decode(json.getBytes(StandardCharsets.UTF_8)))
                .job();
    }

    @Test
    void givenTheWireExample_whenDecoded_thenEveryFieldIsRead() {
        JobValue job = valid("{\"taskName\":\"email.send\",\"payload\":{\"to\":\"a@b.c\"},\"enqueuedAt\":1718900000000,"
                + "\"meta\":{},\"deliveryCount\":1}");
        assertEquals("email.send", job.taskName());
        assertEquals("{\"to\":\"a@b.c\"}", job.payloadJson());
        assertEquals(1718900000000L, job.enqueuedAtMs());
        assertEquals(JobMeta.NONE, job.meta());
        assertEquals(1, job.deliveryCount());
        assertNull(job.jobId());
    }

    @Test
    void givenAJob_whenEncoded_thenItMatchesTheWireShapeAndRoundTrips() throws Exception {
        JobMeta meta = new JobMeta(3, Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30)), 10_000L);
        OutgoingJob out =
                new OutgoingJob("emails", "email.send", "{\"to\":\"a@b.c\",\"n\":1.10}", 1718900000000L, meta, 2, null);
        byte[] value = encoder.encode(out, "job-1");
        assertEquals(
                new ObjectMapper()
                        .readTree(
                                "{\"taskName\":\"email.send\",\"payload\":{\"to\":\"a@b.c\",\"n\":1.10},"
                                        + "\"enqueuedAt\":1718900000000,\"meta\":{\"attempts\":3,\"backoff\":{\"type\":\"exponential\","
                                        + "\"delay\":1000,\"maxDelay\":30000},\"timeout\":10000},\"deliveryCount\":2,\"jobId\":\"job-1\"}"),
                new ObjectMapper().readTree(value));
        JobValue back = valid(new String(value, StandardCharsets.UTF_8));
        assertEquals("{\"to\":\"a@b.c\",\"n\":1.10}", back.payloadJson(), "payload bytes are kept exactly");
        assertEquals(meta, back.meta());
        assertEquals(2, back.deliveryCount());
        assertEquals("job-1", back.jobId());
    }

    @Test
    void givenAPayload_whenDecoded_thenItsBytesAreASliceOfTheValue_andAbsentMeansNone() {
        byte[] value = "{\"taskName\":\"t\",\"payload\": {\"n\": [1, 2]} ,\"deliveryCount\":1}"
                .getBytes(StandardCharsets.UTF_8);
        var valid = assertInstanceOf(JobValueDecoder.Valid.class, decoder.decode(value));
        ByteBuffer bytes = valid.payloadBytes();
        assertSame(value, bytes.array(), "no copy of the record value");
        assertEquals(
                "{\"n\": [1, 2]}",
                StandardCharsets.UTF_8.decode(bytes.duplicate()).toString());
        assertEquals(
                valid.job().payloadJson(),
                StandardCharsets.UTF_8.decode(bytes.duplicate()).toString());
        var none = assertInstanceOf(
                JobValueDecoder.Valid.class, decoder.decode("{\"taskName\":\"t\"}".getBytes(StandardCharsets.UTF_8)));
        assertNull(none.payloadBytes());
        assertEquals("null", none.job().payloadJson());
    }

    @Test
    void givenGoSpellingsAndMissingFields_whenDecoded_thenDefaultsApply() {
        JobValue job =
                valid("{\"taskName\":\"t\",\"meta\":{\"Attempts\":2,\"Backoff\":{\"Type\":\"fixed\",\"Delay\":500,"
                        + "\"MaxDelay\":0},\"Timeout\":0},\"extra\":[1,2,{\"x\":null}]}");
        assertEquals("null", job.payloadJson());
        assertEquals(1, job.deliveryCount());
        assertNull(job.enqueuedAtMs());
        assertEquals(2, job.meta().attempts());
        assertEquals(new Backoff(Backoff.Type.FIXED, 500, 0), job.meta().backoff());
        assertNull(job.meta().timeoutMs(), "a zero timeout counts as absent");
    }

    @Test
    void givenScalarAndStringPayloads_thenTheirTextIsKept() {
        assertEquals("42", valid("{\"taskName\":\"t\",\"payload\":42}").payloadJson());
        assertEquals(
                "\"a \\\"q\\\" \\u00e9\"",
                valid("{\"taskName\":\"t\",\"payload\":\"a \\\"q\\\" \\u00e9\"}")
                        .payloadJson());
        assertEquals(
                "[1, {\"a\": [2]}]",
                valid("{\"payload\":[1, {\"a\": [2]}],\"taskName\":\"t\"}").payloadJson());
    }

    @Test
    void givenValuesThatAreNotJobs_thenTheyAreMalformedWithAReason() {
        for (String bad : new String[] {"not json", "[1,2]", "{\"payload\":1}", "{\"taskName\":\"t\",", "42"}) {
            var decoded = assertInstanceOf(
                    JobValueDecoder.Malformed.class, decoder.decode(bad.getBytes(StandardCharsets.UTF_8)), bad);
            assertEquals(bad, decoded.text());
            assertTrue(!decoded.reason().isBlank());
        }
        assertInstanceOf(JobValueDecoder.Malformed.class, decoder.decode(null));
    }

    @Test
    void givenAPayloadThatIsNotJson_whenEncoding_thenItFailsInsteadOfWritingABrokenValue() {
        OutgoingJob out = new OutgoingJob("q", "t", "{oops", 1L, JobMeta.NONE, 1, null);
        assertThrows(IllegalArgumentException.class, () -> encoder.encode(out, "id"));
    }

    @Test
    void givenADeadLetter_whenEncodedAndDecoded_thenTheJobAndTheErrorComeBack() {
        JobValue job =
                valid("{\"taskName\":\"t\",\"payload\":{\"k\":1},\"enqueuedAt\":5,\"meta\":{},\"deliveryCount\":6}");
        byte[] value = deadLetters.encodeDeadLetter(job, "job-9", "boom", "backstage.q:0:17", 6, 99L);
        DeadLetterValue dl = deadLetters.decodeDeadLetter(value);
        assertEquals("boom", dl.error());
        assertEquals("backstage.q:0:17", dl.originalId());
        assertEquals(6, dl.deliveryCount());
        assertEquals(99L, dl.deadLetteredAtMs());
        assertEquals("{\"k\":1}", dl.job().payloadJson());
        assertEquals("job-9", dl.job().jobId());
        assertNull(dl.rawValue());

        DeadLetterValue raw = deadLetters.decodeDeadLetter(
                deadLetters.encodeMalformedDeadLetter("garbage", "not a job", "x:0:1", 7L));
        assertNull(raw.job());
        assertEquals("garbage", raw.rawValue());
        assertEquals("not a job", raw.error());
    }

    /** A payload type for the one-pass binding tests. */
    record Order(String id, int qty) {}

    private final dev.backstage.runtime.core.PayloadCodec payloads = dev.backstage.runtime.core.PayloadCodec.defaults();

    private JobValueDecoder.Valid decodeBinding(String json, dev.backstage.runtime.core.JsonTokens.Binder binder) {
        return assertInstanceOf(
                JobValueDecoder.Valid.class, decoder.decode(json.getBytes(StandardCharsets.UTF_8), binder));
    }

    @Test
    void givenTheTaskNameBeforeThePayload_whenDecodedWithABinder_thenThePayloadIsBoundInThePassAndTheRestIsRead() {
        JobValueDecoder.Valid v = decodeBinding(
                "{\"taskName\":\"order\",\"payload\":{\"id\":\"o-1\",\"qty\":3},"
                        + "\"enqueuedAt\":5,\"meta\":{\"attempts\":2},\"deliveryCount\":4,\"jobId\":\"j-1\"}",
                (task, parser) -> payloads.decodeInline(parser, Order.class));
        assertEquals(new Order("o-1", 3), v.boundPayload());
        assertNull(v.payloadTokens(), "a bound payload keeps no token copy");
        assertEquals(
                "{\"id\":\"o-1\",\"qty\":3}", v.job().payloadJson(), "the payload's bytes are still cut out exactly");
        assertEquals(5L, v.enqueuedAtMs());
        assertEquals(2, v.meta().attempts());
        assertEquals(4, v.deliveryCount());
        assertEquals("j-1", v.jobId());
    }

    @Test
    void givenAPayloadOfTheWrongShape_whenTheBinderFails_thenTheValueIsReadAgainWithTokensAndNothingIsBound() {
        JobValueDecoder.Valid v = decodeBinding(
                "{\"taskName\":\"order\",\"payload\":{\"id\":[1,2],\"qty\":\"x\"}," + "\"jobId\":\"j-2\"}",
                (task, parser) -> payloads.decodeInline(parser, Order.class));
        assertSame(dev.backstage.runtime.core.JsonTokens.NOT_BOUND, v.boundPayload());
        assertEquals("j-2", v.jobId(), "fields after the payload are read in the second pass");
        assertThrows(
                dev.backstage.runtime.core.PayloadCodec.MalformedPayloadException.class,
                () -> payloads.decode(
                        v.payloadTokens(), Order.class, () -> v.job().payloadJson()),
                "the core then reports the wrong shape as it does for any payload");
    }

    @Test
    void givenThePayloadBeforeTheTaskName_whenDecodedWithABinder_thenTheBinderIsNotAskedAndTokensAreKept() {
        JobValueDecoder.Valid v =
                decodeBinding("{\"payload\":{\"id\":\"o-3\",\"qty\":1},\"taskName\":\"order\"}", (task, parser) -> {
                    throw new AssertionError("no task name is known when the payload comes first");
                });
        assertSame(dev.backstage.runtime.core.JsonTokens.NOT_BOUND, v.boundPayload());
        assertEquals(
                new Order("o-3", 1),
                payloads.decode(v.payloadTokens(), Order.class, () -> v.job().payloadJson()));
    }

    @Test
    void givenABinderThatDeclines_whenDecoded_thenThePayloadIsKeptAsTokens() {
        JobValueDecoder.Valid v = decodeBinding(
                "{\"taskName\":\"unknown\",\"payload\":[1,2],\"jobId\":\"j-4\"}",
                (task, parser) -> dev.backstage.runtime.core.JsonTokens.NOT_BOUND);
        assertSame(dev.backstage.runtime.core.JsonTokens.NOT_BOUND, v.boundPayload());
        assertEquals("[1,2]", v.job().payloadJson());
        assertEquals("j-4", v.jobId());
    }

    @Test
    void givenANullPayloadForATypeThatNeedsOne_whenBound_thenItIsNotBoundAndTheCoreReportsIt() {
        JobValueDecoder.Valid v = decodeBinding(
                "{\"taskName\":\"order\",\"payload\":null,\"jobId\":\"j-5\"}",
                (task, parser) -> payloads.decodeInline(parser, Order.class));
        assertSame(dev.backstage.runtime.core.JsonTokens.NOT_BOUND, v.boundPayload());
        assertEquals("j-5", v.jobId());
    }
}
