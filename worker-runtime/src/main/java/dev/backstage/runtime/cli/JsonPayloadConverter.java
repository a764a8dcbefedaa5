package dev.backstage.runtime.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.backstage.runtime.spi.BrokerNames;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A job payload on the command line: exactly one JSON value, nothing before or after it, or {@code @path} for a
 * UTF-8 file holding one ({@link PayloadFile}). The text is kept as given (it is what gets enqueued); this only
 * refuses what a worker could not decode. An error shows at most the payload's first 60 characters.
 */
final class JsonPayloadConverter implements ITypeConverter<String> {
    private static final ObjectReader ONE_VALUE = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build()
            .readerFor(JsonNode.class);
    private static final String EXAMPLE = "e.g. '{\"orderId\":\"o1\"}'";

    @Override
    public String convert(String argument) {
        String text = argument.startsWith("@") ? PayloadFile.read(argument) : argument;
        if (text.isBlank()) {
            throw new TypeConversionException("the payload is empty; give one JSON value, " + EXAMPLE);
        }
        try {
            ONE_VALUE.readValue(text);
        } catch (JsonProcessingException e) {
            String problem = BrokerNames.shown(e.getOriginalMessage(), 160);
            throw new TypeConversionException(BrokerNames.shown(text, 60) + " is not one JSON value (" + problem
                    + " at column " + e.getLocation().getColumnNr() + "); give one JSON value, " + EXAMPLE);
        }
        return text;
    }
}
