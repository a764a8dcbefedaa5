package dev.backstage.runtime.rabbitmq;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.backstage.runtime.spi.Backoff;
import dev.backstage.runtime.spi.JobMeta;
import dev.backstage.runtime.spi.OutgoingJob;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The job body format of docs/wire-format.md, without a broker. */
class RabbitMqJobBodyTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private final JobBodyCodec codec = new JobBodyCodec(mapper);

    private JobBody decode(String text) {
        return codec.decode(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void givenAJob_whenWritten_thenTheWireFieldsHaveEmbeddedPayloadMetaAndJobId() throws Exception {
        OutgoingJob job = new OutgoingJob(
                "emails",
                "email.send",
                "{\"to\":\"a@b.c\"}",
                1718900000000L,
                new JobMeta(3, Backoff.fixed(Duration.ofMillis(500)), 2000L),
                1,
                null);
        JsonNode body = mapper.readTree(codec.encode(job, "job-1"));
        assertEquals("emails", body.get("queue").asText());
        assertEquals("email.send", body.get("taskName").asText());
        assertTrue(body.get("payload").isObject(), "payload is embedded JSON, not a string");
        assertEquals("a@b.c", body.get("payload").get("to").asText());
        assertEquals(1718900000000L, body.get("enqueuedAt").asLong());
        assertEquals(3, body.get("meta").get("attempts").asInt());
        assertEquals("fixed", body.get("meta").get("backoff").get("type").asText());
        assertEquals(500, body.get("meta").get("backoff").get("delay").asLong());
        assertTrue(body.get("meta").get("backoff").get("maxDelay").asLong() > 0, "explicit positive maxDelay");
        assertEquals(2000, body.get("meta").get("timeout").asLong());
        assertEquals(1, body.get("deliveryCount").asInt());
        assertEquals("job-1", body.get("jobId").asText());
    }

    @Test
    void givenUnsetMetaFields_whenWritten_thenTheyAreOmitted() throws Exception {
        JsonNode body = mapper.readTree(codec.encode(OutgoingJob.fresh("q", "t", "1", JobMeta.NONE), "id"));
        assertEquals(0, body.get("meta").size());
    }

    @Test
    void givenTheTsExampleFromTheSpec_whenDecoded_thenEveryFieldIsRead() {
        JobBody body = decode("{\"queue\":\"emails\",\"taskName\":\"email.send\",\"payload\":{\"to\":\"a@b.c\"},"
                + "\"enqueuedAt\":1718900000000,\"meta\":{\"attempts\":3,\"backoff\":{\"type\":\"fixed\",\"delay\":500}},"
                + "\"deliveryCount\":1}");
        assertFalse(body.malformed());
        assertEquals("email.send", body.taskName());
        assertEquals("{\"to\":\"a@b.c\"}", body.payloadJson());
        assertEquals(1718900000000L, body.enqueuedAtMs());
        assertEquals(3, body.meta().attempts());
        assertEquals(Backoff.Type.FIXED, body.meta().backoff().type());
        assertEquals(500, body.meta().backoff().delayMs());
        assertEquals(1, body.deliveryCount());
        assertNull(body.jobId(), "a seed body carries no jobId");
    }

    @Test
    void givenGosCapitalisedMetaKeys_whenRead_thenTheyAreAccepted() {
        JobBody body = decode(
                "{\"taskName\":\"t\",\"payload\":null,\"enqueuedAt\":1,\"meta\":{\"Attempts\":4,"
                        + "\"Backoff\":{\"Type\":\"exponential\",\"Delay\":100,\"MaxDelay\":0},\"Timeout\":900},\"deliveryCount\":2}");
        assertEquals(4, body.meta().attempts());
        assertEquals(Backoff.Type.EXPONENTIAL, body.meta().backoff().type());
        assertEquals(100, body.meta().backoff().delayMs());
        assertEquals(900L, body.meta().timeoutMs());
        assertEquals(2, body.deliveryCount());
    }

    @Test
    void givenAPayload_whenDecoded_thenItsTextIsKeptByteForByte() {
        String payload = "{ \"price\" : 1.50, \"name\":\"caf\\u00e9 \\\"x\\\"\", \"n\": [1, 2e3] }";
        JobBody body = decode("{\"taskName\":\"t\",\"payload\":" + payload + ",\"deliveryCount\":1}");
        assertEquals(payload, body.payloadJson());
        JobBody stringPayload = decode("{\"payload\":\"a \\\"quoted\\\" text\",\"taskName\":\"t\"}");
        assertEquals("\"a \\\"quoted\\\" text\"", stringPayload.payloadJson());
        JobBody numberPayload = decode("{\"taskName\":\"t\",\"payload\":42}");
        assertEquals("42", numberPayload.payloadJson());
    }

    @Test
    void givenBodiesThatCannotBeJobs_whenRead_thenTheyAreReportedMalformed() {
        assertTrue(decode("not json").malformedReason().contains("not JSON"));
        assertTrue(decode("[1,2]").malformedReason().contains("not an object"));
        assertTrue(decode("{\"payload\":1}").malformedReason().contains("no taskName"));
        assertTrue(decode("{\"taskName\":\"t\"} trailing").malformed());
        assertTrue(decode("").malformedReason().contains("empty"));
    }

    @Test
    void givenADeadLetter_thenItsBodyIsTheOriginalPlusErrorFieldsAndJobId() throws Exception {
        JobBody original = decode("{\"queue\":\"q\",\"taskName\":\"t\",\"payload\":{\"a\":1.50},\"enqueuedAt\":5,"
                + "\"deliveryCount\":2,\"traceparent\":\"00-abc\"}");
        String text = new String(codec.deadLetter(original, "boom", "17", 3, "job-9", 1000), StandardCharsets.UTF_8);
        JsonNode body = mapper.readTree(text);
        assertTrue(text.contains("\"payload\":{\"a\":1.50}"), text);
        assertEquals("boom", body.get("error").asText());
        assertEquals("17", body.get("originalId").asText());
        assertEquals(3, body.get("deliveryCount").asInt());
        assertEquals(1000, body.get("deadLetteredAt").asLong());
        assertEquals("job-9", body.get("jobId").asText());
        assertEquals("00-abc", body.get("traceparent").asText(), "unknown fields survive");
    }

    @Test
    void givenADeadLetterOfANonObject_thenItKeepsTheText_andARedriveRestoresIt() {
        JobBody original = decode("not json at all");
        byte[] deadLetter = codec.deadLetter(original, "body is not JSON", "3", 1, "x:3", 1);
        JobBody stored = codec.decode(deadLetter);
        assertEquals("not json at all", stored.text("rawBody"));
        assertEquals("not json at all", new String(codec.redriven(stored, "x:3"), StandardCharsets.UTF_8));
    }

    @Test
    void givenADeadLetterOfABinaryBody_thenItKeepsItsBytesInBase64_andARedriveRestoresThemExactly() {
        byte[] binary = {(byte) 0xff, (byte) 0xfe, 0x00, 0x41, (byte) 0xc3, 0x28};
        JobBody original = codec.decode(binary);
        JobBody stored = codec.decode(codec.deadLetter(original, "body is not JSON", "3", 1, "x:3", 1));
        assertEquals(java.util.Base64.getEncoder().encodeToString(binary), stored.text("rawBodyBase64"));
        assertArrayEquals(binary, codec.redriven(stored, "x:3"));
    }

    @Test
    void givenADeadLetter_whenRedriven_thenItsFieldsAreStrippedAndTheCountRestarts() throws Exception {
        JobBody deadLettered = codec.decode(codec.deadLetter(
                decode("{\"taskName\":\"t\",\"payload\":1," + "\"deliveryCount\":6}"), "boom", "1", 6, "job-1", 1));
        JsonNode redriven = mapper.readTree(codec.redriven(deadLettered, "job-1"));
        assertEquals(1, redriven.get("deliveryCount").asInt());
        assertEquals("job-1", redriven.get("jobId").asText());
        assertFalse(redriven.has("error") || redriven.has("originalId") || redriven.has("deadLetteredAt"));
    }

    @Test
    void givenAPayloadThatIsNotJson_whenPublished_thenItIsRefused() {
        OutgoingJob job = OutgoingJob.fresh("q", "t", "{not json", JobMeta.NONE);
        assertThrows(IllegalArgumentException.class, () -> codec.encode(job, "id"));
    }
}
