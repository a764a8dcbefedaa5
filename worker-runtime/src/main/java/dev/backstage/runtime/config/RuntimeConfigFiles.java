package dev.backstage.runtime.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.backstage.runtime.spi.ConfigurationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads and writes {@link RuntimeConfig} as YAML; errors name the file and the bad field. */
public final class RuntimeConfigFiles {
    private static final ObjectMapper YAML = new ObjectMapper(
                    new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER))
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private RuntimeConfigFiles() {}

    public static RuntimeConfig read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new ConfigurationException("cannot read runtime config " + file + ": " + e.getMessage(), e);
        }
    }

    public static RuntimeConfig parse(String yaml) {
        try {
            return YAML.readValue(yaml, RuntimeConfig.class);
        } catch (JsonProcessingException e) {
            throw new ConfigurationException("invalid runtime config: " + e.getOriginalMessage(), e);
        }
    }

    public static String render(RuntimeConfig config) {
        try {
            return YAML.writeValueAsString(config);
        } catch (JsonProcessingException e) {
            throw new ConfigurationException("cannot render runtime config: " + e.getMessage(), e);
        }
    }
}
