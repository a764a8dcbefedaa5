package dev.backstage.runtime.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PayloadCodecTest {
    record Order(String id, int amount) {}

    private final PayloadCodec codec = PayloadCodec.defaults();

    /** A payload as a provider hands it: a slice of a bigger record value, not a copy. */
    private static ByteBuffer slice(String before, String payload, String after) {
        byte[] all = (before + payload + after).getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.wrap(
                all, before.getBytes(StandardCharsets.UTF_8).length, payload.getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void givenASliceOfARecord_whenDecoded_thenOnlyThePayloadIsRead_asFromText() {
        ByteBuffer bytes =
                slice("{\"taskName\":\"o\",\"payload\":", "{\"id\":\"é-1\",\"amount\":3}", ",\"jobId\":\"x\"}");
        assertEquals(new Order("é-1", 3), codec.decode(bytes, Order.class));
        assertEquals(codec.decode("{\"id\":\"é-1\",\"amount\":3}", Order.class), codec.decode(bytes, Order.class));
        JsonNode tree = codec.decode(slice("[", "{\"a\":[1,2]}", "]"), JsonNode.class);
        assertEquals(2, tree.get("a").size());
    }

    @Test
    void givenABadSlice_whenDecoded_thenTheReasonIsTheSameAsForText() {
        var fromBytes = assertThrows(
                PayloadCodec.MalformedPayloadException.class,
                () -> codec.decode(slice("xx", "{\"id\":", "yy"), Order.class));
        var fromText =
                assertThrows(PayloadCodec.MalformedPayloadException.class, () -> codec.decode("{\"id\":", Order.class));
        assertEquals(fromText.getMessage(), fromBytes.getMessage());
        var wrongShape = assertThrows(
                PayloadCodec.MalformedPayloadException.class,
                () -> codec.decode(slice("", "{\"amount\":\"lots\"}", ""), Order.class));
        assertTrue(wrongShape.getMessage().startsWith("payload cannot be read as Order"), wrongShape.getMessage());
    }

    @Test
    void givenAPayloadWithTrailingContent_thenItIsMalformed_fromTextAndFromBytesAlike() {
        var fromText = assertThrows(
                PayloadCodec.MalformedPayloadException.class,
                () -> codec.decode("{\"id\":\"a\",\"amount\":1} trailing", Order.class));
        assertTrue(fromText.getMessage().startsWith("payload is not valid JSON"), fromText.getMessage());
        assertThrows(
                PayloadCodec.MalformedPayloadException.class,
                () -> codec.decode(slice("", "{\"id\":\"a\",\"amount\":1}{}", ""), Order.class));
        assertThrows(PayloadCodec.MalformedPayloadException.class, () -> codec.decode("[1] [2]", JsonNode.class));
    }

    @Test
    void givenAMissingOrNullPayload_thenItIsMalformedUnlessTheTypeAcceptsNoPayload() {
        var missing = assertThrows(
                PayloadCodec.MalformedPayloadException.class, () -> codec.decode((String) null, Order.class));
        assertEquals("payload is missing, and a Order payload cannot be null", missing.getMessage());
        var nul = assertThrows(
                PayloadCodec.MalformedPayloadException.class, () -> codec.decode(slice("", "null", ""), Order.class));
        assertTrue(nul.getMessage().startsWith("payload is null"), nul.getMessage());
        assertTrue(codec.decode("null", JsonNode.class).isNull());
        assertEquals(null, codec.decode((String) null, Void.class));
    }

    /** Tokens as a provider keeps them when it reads the payload in the envelope's pass. */
    private static com.fasterxml.jackson.core.JsonParser tokens(String json) throws Exception {
        var parser = new com.fasterxml.jackson.core.JsonFactory().createParser(json);
        parser.nextToken();
        var buffer = new com.fasterxml.jackson.databind.util.TokenBuffer(parser, null);
        buffer.copyCurrentStructure(parser);
        return buffer.asParser();
    }

    @Test
    void givenTokensReadWithTheEnvelope_whenDecoded_thenTheyBindAsTheTextDoes_andFailWithTheTextsReason()
            throws Exception {
        String text = "{\"id\":\"é-1\",\"amount\":3}";
        assertEquals(codec.decode(text, Order.class), codec.decode(tokens(text), Order.class, () -> text));
        String wrong = "{\"id\":\"a\",\"amount\":\"many\"}";
        var fromTokens = assertThrows(
                PayloadCodec.MalformedPayloadException.class,
                () -> codec.decode(tokens(wrong), Order.class, () -> wrong));
        var fromText =
                assertThrows(PayloadCodec.MalformedPayloadException.class, () -> codec.decode(wrong, Order.class));
        assertEquals(fromText.getMessage(), fromTokens.getMessage());
        var none = assertThrows(
                PayloadCodec.MalformedPayloadException.class,
                () -> codec.decode(tokens("null"), Order.class, () -> "null"));
        assertEquals(
                assertThrows(PayloadCodec.MalformedPayloadException.class, () -> codec.decode("null", Order.class))
                        .getMessage(),
                none.getMessage());
    }
}
