package dev.backstage.testsupport;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates made for one test run, written as PEM files the way Secrets are mounted: a CA ({@code ca.crt}); a
 * server certificate signed by it for {@code localhost} and {@code 127.0.0.1} ({@code server.crt}/{@code server.key});
 * the same for a name nobody connects to ({@code wronghost.*}), an expired one ({@code expired.*}), a client
 * certificate ({@code client.crt}/{@code client.key}), and an unrelated CA ({@code other-ca.crt}) a client can trust
 * instead, to see an untrusted server. RSA 2048 keys, PKCS#8 {@code PRIVATE KEY} PEM; key files are mode 0400.
 */
public final class TestCertificates {
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** Generates all of them into a fresh temp directory (about a second: five RSA keys). */
    public static TestCertificates generate() {
        try {
            Path dir = Files.createTempDirectory("backstage-tls-");
            KeyPair caKeys = rsa();
            X500Name caName = new X500Name("CN=backstage-test-ca");
            X509Certificate ca = sign(
                    caName,
                    caKeys,
                    caName,
                    caKeys,
                    true,
                    List.of(),
                    Instant.now().plus(Duration.ofDays(2)),
                    null);
            write(dir.resolve("ca.crt"), pem(ca));
            KeyPair otherKeys = rsa();
            X500Name otherName = new X500Name("CN=backstage-unrelated-ca");
            write(
                    dir.resolve("other-ca.crt"),
                    pem(sign(
                            otherName,
                            otherKeys,
                            otherName,
                            otherKeys,
                            true,
                            List.of(),
                            Instant.now().plus(Duration.ofDays(2)),
                            null)));
            List<GeneralName> local = List.of(
                    new GeneralName(GeneralName.dNSName, "localhost"),
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
            leaf(
                    dir,
                    "server",
                    caName,
                    caKeys,
                    "localhost",
                    local,
                    Instant.now().plus(Duration.ofDays(2)),
                    KeyPurposeId.id_kp_serverAuth);
            leaf(
                    dir,
                    "wronghost",
                    caName,
                    caKeys,
                    "broker.example.invalid",
                    List.of(new GeneralName(GeneralName.dNSName, "broker.example.invalid")),
                    Instant.now().plus(Duration.ofDays(2)),
                    KeyPurposeId.id_kp_serverAuth);
            leaf(
                    dir,
                    "expired",
                    caName,
                    caKeys,
                    "localhost",
                    local,
                    Instant.now().minus(Duration.ofDays(1)),
                    KeyPurposeId.id_kp_serverAuth);
            leaf(
                    dir,
                    "client",
                    caName,
                    caKeys,
                    "backstage-worker",
                    List.of(),
                    Instant.now().plus(Duration.ofDays(2)),
                    KeyPurposeId.id_kp_clientAuth);
            return new TestCertificates(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
            throw new IllegalStateException("cannot generate test certificates", e);
        }
    }

    public Path dir() {
        return dir;
    }

    public Path ca() {
        return dir.resolve("ca.crt");
    }

    public Path otherCa() {
        return dir.resolve("other-ca.crt");
    }

    /** {@code <name>.crt}: server, wronghost, expired or client. */
    public Path certificate(String name) {
        return dir.resolve(name + ".crt");
    }

    /** {@code <name>.key}: server, wronghost, expired or client. */
    public Path key(String name) {
        return dir.resolve(name + ".key");
    }

    /** The PEM text of a key, for leak checks (the test must never find it in any output). */
    public String keyPem(String name) {
        try {
            return Files.readString(key(name), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A TLS context that trusts exactly this run's CA, for test clients (admin calls, assertions). */
    public javax.net.ssl.SSLContext trustingCa() {
        try (var in = Files.newInputStream(ca())) {
            java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry(
                    "ca",
                    java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
            javax.net.ssl.TrustManagerFactory trust = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void leaf(
            Path dir,
            String file,
            X500Name caName,
            KeyPair caKeys,
            String cn,
            List<GeneralName> names,
            Instant notAfter,
            KeyPurposeId purpose)
            throws GeneralSecurityException, IOException, org.bouncycastle.operator.OperatorCreationException {
        KeyPair keys = rsa();
        X509Certificate certificate =
                sign(new X500Name("CN=" + cn), keys, caName, caKeys, false, names, notAfter, purpose);
        write(dir.resolve(file + ".crt"), pem(certificate));
        Path key = dir.resolve(file + ".key");
        write(key, pem(new JcaPKCS8Generator(keys.getPrivate(), null).generate()));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("r--------"));
    }

    private static X509Certificate sign(
            X500Name subject,
            KeyPair subjectKeys,
            X500Name issuer,
            KeyPair issuerKeys,
            boolean ca,
            List<GeneralName> names,
            Instant notAfter,
            KeyPurposeId purpose)
            throws GeneralSecurityException, IOException, org.bouncycastle.operator.OperatorCreationException {
        Instant notBefore = notAfter.isBefore(Instant.now())
                ? notAfter.minus(Duration.ofDays(2))
                : Instant.now().minus(Duration.ofMinutes(5));
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                issuer,
                BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(notBefore),
                Date.from(notAfter),
                subject,
                subjectKeys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (ca) {
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } else {
            builder.addExtension(
                    Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
        }
        if (!names.isEmpty()) {
            builder.addExtension(
                    Extension.subjectAlternativeName,
                    false,
                    new GeneralNames(new ArrayList<>(names).toArray(GeneralName[]::new)));
        }
        return new JcaX509CertificateConverter()
                .getCertificate(
                        builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuerKeys.getPrivate())));
    }

    private static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    private static String pem(Object object) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(object);
        }
        return out.toString();
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.US_ASCII);
    }
}
