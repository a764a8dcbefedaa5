package dev.backstage.runtime.cli;

import dev.backstage.runtime.config.Durations;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h30m}: the same duration text the CRDs take. */
final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String text) {
        try {
            return Durations.parse(null, text);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
