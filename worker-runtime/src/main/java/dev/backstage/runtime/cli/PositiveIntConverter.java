package dev.backstage.runtime.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A count, limit or number of attempts: a whole number of at least 1. */
final class PositiveIntConverter implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String text) {
        int value;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException(
                    "'" + text + "' is not a whole number; give one from 1 to " + Integer.MAX_VALUE);
        }
        if (value < 1) {
            throw new TypeConversionException(value + " is less than 1; give a number from 1 to " + Integer.MAX_VALUE);
        }
        return value;
    }
}
