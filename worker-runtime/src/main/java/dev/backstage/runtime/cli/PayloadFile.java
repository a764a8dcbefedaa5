package dev.backstage.runtime.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.TypeConversionException;

/**
 * A payload given as {@code @path}: the file's bytes, which must be UTF-8 (a malformed byte is refused with its
 * offset, never replaced) and at most {@value #MAX_BYTES} bytes. Errors name the file, never its content.
 */
final class PayloadFile {
    /** 64 MiB: above what any of the brokers takes in one message by default. */
    static final int MAX_BYTES = 64 * 1024 * 1024;

    private PayloadFile() {}

    static String read(String argument) {
        Path path = Path.of(argument.substring(1));
        byte[] bytes;
        try {
            long size = Files.size(path);
            if (size > MAX_BYTES) {
                throw new TypeConversionException("payload file " + path + " has " + size + " bytes; the limit is "
                        + MAX_BYTES + " (64 MiB): put large data in storage and enqueue a reference to it");
            }
            try (InputStream in = Files.newInputStream(path)) {
                bytes = in.readNBytes(MAX_BYTES + 1);
            }
        } catch (NoSuchFileException e) {
            throw new TypeConversionException("payload file " + path + " does not exist; give @<path to a JSON file>");
        } catch (IOException e) {
            throw new TypeConversionException("payload file " + path + " cannot be read: " + e.getMessage());
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (MalformedInputException e) {
            int offset = firstMalformed(bytes);
            throw new TypeConversionException("payload file " + path + " is not valid UTF-8 (byte offset " + offset
                    + "); convert it to UTF-8, e.g. iconv -f latin1 -t utf-8");
        } catch (CharacterCodingException e) {
            throw new TypeConversionException("payload file " + path + " is not valid UTF-8; convert it to UTF-8");
        }
    }

    private static int firstMalformed(byte[] bytes) {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(bytes.length + 1);
        var result = decoder.decode(in, out, true);
        return result.isError() ? in.position() : -1;
    }
}
