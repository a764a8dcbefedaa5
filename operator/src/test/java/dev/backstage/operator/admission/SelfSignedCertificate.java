package dev.backstage.operator.admission;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed server certificate for {@code localhost} / {@code 127.0.0.1}, made with Bouncy Castle, written as
 * PEM {@code tls.crt} / {@code tls.key} the way a {@code kubernetes.io/tls} Secret is mounted, plus an SSLContext
 * that trusts exactly it (as the API server trusts the webhook's CA bundle).
 */
record SelfSignedCertificate(X509Certificate certificate, KeyPair keys) {
    static SelfSignedCertificate generate(String algorithm) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
            if (algorithm.equals("EC")) {
                generator.initialize(new ECGenParameterSpec("secp256r1"));
            } else {
                generator.initialize(2048);
            }
            KeyPair keys = generator.generateKeyPair();
            Instant now = Instant.now();
            X500Name subject = new X500Name("CN=backstage-operator-webhook");
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    subject,
                    BigInteger.valueOf(now.toEpochMilli()),
                    Date.from(now.minus(Duration.ofMinutes(1))),
                    Date.from(now.plus(Duration.ofDays(1))),
                    subject,
                    keys.getPublic());
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")
            }));
            String signature = algorithm.equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder(signature).build(keys.getPrivate())));
            return new SelfSignedCertificate(certificate, keys);
        } catch (GeneralSecurityException
                | org.bouncycastle.operator.OperatorCreationException
                | org.bouncycastle.cert.CertIOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Writes {@code tls.crt} and {@code tls.key}: an RSA key as PKCS#1 {@code RSA PRIVATE KEY} (cert-manager's
     * default), an EC key as PKCS#8 {@code PRIVATE KEY}.
     */
    void writeTo(Path dir) {
        try {
            Files.writeString(dir.resolve("tls.crt.tmp"), pem(certificate), StandardCharsets.US_ASCII);
            Object key = keys.getPrivate().getAlgorithm().equals("EC")
                    ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(keys.getPrivate(), null).generate()
                    : keys.getPrivate();
            Files.writeString(dir.resolve("tls.key.tmp"), pem(key), StandardCharsets.US_ASCII);
            Files.move(
                    dir.resolve("tls.crt.tmp"),
                    dir.resolve("tls.crt"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            Files.move(
                    dir.resolve("tls.key.tmp"),
                    dir.resolve("tls.key"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    SSLContext trustingContext() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("webhook", certificate);
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(Object object) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(object);
        }
        return out.toString();
    }
}
