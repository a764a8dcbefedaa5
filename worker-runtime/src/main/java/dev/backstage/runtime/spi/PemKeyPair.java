package dev.backstage.runtime.spi;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * A TLS key pair read from PEM files, as cert-manager and {@code kubernetes.io/tls} Secrets hold it: {@code tls.crt}
 * (the certificate, then any intermediates) and {@code tls.key} (PKCS#8 {@code PRIVATE KEY}, or PKCS#1 / SEC1
 * {@code RSA PRIVATE KEY} / {@code EC PRIVATE KEY}). Bouncy Castle parses them; the JDK's default providers do the
 * crypto.
 */
public record PemKeyPair(List<X509Certificate> chain, PrivateKey key) {
    public PemKeyPair {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("no certificate");
        }
    }

    public static PemKeyPair read(Path certificateFile, Path keyFile) throws IOException, GeneralSecurityException {
        List<X509Certificate> chain = readCertificates(certificateFile);
        JcaPEMKeyConverter keys = new JcaPEMKeyConverter();
        try (Reader reader = Files.newBufferedReader(keyFile, StandardCharsets.US_ASCII);
                PEMParser pem = new PEMParser(reader)) {
            for (Object item = pem.readObject(); item != null; item = pem.readObject()) {
                if (item instanceof PrivateKeyInfo info) {
                    return new PemKeyPair(chain, keys.getPrivateKey(info));
                }
                if (item instanceof PEMKeyPair pair) {
                    // Only the private half: SEC1 "EC PRIVATE KEY" may omit the public key, and the chain has it.
                    return new PemKeyPair(chain, keys.getPrivateKey(pair.getPrivateKeyInfo()));
                }
            }
        }
        throw new GeneralSecurityException(keyFile
                + " holds no unencrypted PEM private key (PRIVATE KEY, RSA PRIVATE KEY" + " or EC PRIVATE KEY)");
    }

    /** Every PEM {@code CERTIFICATE} in the file, in order (a chain, or a CA bundle); at least one. */
    public static List<X509Certificate> readCertificates(Path file) throws IOException, GeneralSecurityException {
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                PEMParser pem = new PEMParser(reader)) {
            for (Object item = pem.readObject(); item != null; item = pem.readObject()) {
                if (item instanceof X509CertificateHolder holder) {
                    certificates.add(converter.getCertificate(holder));
                }
            }
        }
        if (certificates.isEmpty()) {
            throw new GeneralSecurityException(file + " holds no PEM CERTIFICATE");
        }
        return certificates;
    }

    /** The private key as PKCS#8 PEM ({@code PRIVATE KEY}), the one form every client library reads. */
    public String pkcs8Pem() {
        return "-----BEGIN PRIVATE KEY-----\n"
                + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
    }

    /** The chain as PEM, leaf first. */
    public String chainPem() {
        StringBuilder out = new StringBuilder();
        for (X509Certificate certificate : chain) {
            out.append(certificatePem(certificate));
        }
        return out.toString();
    }

    public static String certificatePem(X509Certificate certificate) {
        try {
            return "-----BEGIN CERTIFICATE-----\n"
                    + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Never the key: a record's default toString would print it. */
    @Override
    public String toString() {
        return "PemKeyPair[" + chain.get(0).getSubjectX500Principal() + "]";
    }
}
