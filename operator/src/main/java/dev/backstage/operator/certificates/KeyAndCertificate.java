package dev.backstage.operator.certificates;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Objects;

/**
 * A private key and its certificate. {@link #toString()} never shows the key.
 *
 * @param key         the private key
 * @param certificate the certificate of its public half
 */
public record KeyAndCertificate(PrivateKey key, X509Certificate certificate) {
    public KeyAndCertificate {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(certificate, "certificate");
    }

    /** When the certificate stops being valid. */
    public Instant notAfter() {
        return certificate.getNotAfter().toInstant();
    }

    /** When the certificate starts being valid. */
    public Instant notBefore() {
        return certificate.getNotBefore().toInstant();
    }

    /** The serial number in hex, to tell certificates apart in logs. */
    public String serial() {
        return certificate.getSerialNumber().toString(16);
    }

    @Override
    public String toString() {
        return "KeyAndCertificate[" + certificate.getSubjectX500Principal() + ", serial " + serial() + ", until "
                + notAfter() + "]";
    }
}
