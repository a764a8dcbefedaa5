package dev.backstage.operator.broker;

import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.TlsSpec;
import dev.backstage.operator.workload.WorkerContainer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * The operator's own copy of a connection's TLS Secrets, as the files the runtime's providers read: one directory per
 * content (named by its digest, so a rotation gets a new directory and a new fingerprint, and a provider never sees
 * half-written files), mode 0700, files 0400, under a private base directory. The digest is the fingerprint part:
 * it changes with the Secrets' content and reveals nothing about it.
 */
public final class TlsFiles {
    private final Path base;

    public TlsFiles(Path base) {
        this.base = base;
    }

    /** Under the JVM's temp directory, private to the operator's user. */
    public static TlsFiles inTempDir() {
        try {
            return new TlsFiles(Files.createTempDirectory(
                    "backstage-operator-tls-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The files of one connection and the provider options that name them. */
    public record Written(Map<String, String> options, String fingerprint) {
        public static final Written NONE = new Written(Map.of(), "");
    }

    /** Writes {@code material} (unless this content is already on disk) and returns the options naming the files. */
    public Written write(ConnectionSecrets.TlsMaterial material, TlsSpec tls, ProviderType provider) {
        if (material.isEmpty()) {
            return Written.NONE;
        }
        String digest = digest(material);
        Path dir = base.resolve(digest);
        try {
            if (!Files.isDirectory(dir)) {
                Path staging = Files.createTempDirectory(
                        base,
                        "staging-",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                file(staging, WorkerContainer.CA_FILE, material.caBundle());
                file(staging, WorkerContainer.CERT_FILE, material.certificate());
                file(staging, WorkerContainer.KEY_FILE, material.key());
                try {
                    Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
                } catch (java.nio.file.FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
                    deleteQuietly(staging); // another reconcile wrote the same content first
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write TLS files under " + base, e);
        }
        return new Written(WorkerContainer.tlsOptions(dir.toString(), tls, provider), digest);
    }

    private static void file(Path dir, String name, String content) throws IOException {
        if (content == null) {
            return;
        }
        Path file = dir.resolve(name);
        Files.writeString(file, content, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a leftover staging directory holds nothing another user can read (0700)
        }
    }

    private static String digest(ConnectionSecrets.TlsMaterial material) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {material.caBundle(), material.certificate(), material.key()}) {
                sha.update(String.valueOf(part).getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
