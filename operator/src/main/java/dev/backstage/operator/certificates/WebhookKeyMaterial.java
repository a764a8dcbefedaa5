package dev.backstage.operator.certificates;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * What the webhook's TLS Secret holds, as PEM under fixed keys: the serving pair ({@code tls.crt}, {@code tls.key},
 * as in any {@code kubernetes.io/tls} Secret), the CA that signed it ({@code ca.crt}, {@code ca.key}), the next CA
 * once it is published ({@code next-ca.crt}, {@code next-ca.key}) and the previous CA's certificate until it expires
 * ({@code previous-ca.crt}). Parsing and encoding only; {@link #toString()} shows no key.
 *
 * @param ca         the CA that signed {@code serving}
 * @param serving    the pair the webhook serves
 * @param nextCa     a CA already in the caBundle that will sign the next serving certificate
 * @param previousCa the CA before {@code ca}, kept in the caBundle while a replica may still serve what it signed
 */
public record WebhookKeyMaterial(
        KeyAndCertificate ca,
        KeyAndCertificate serving,
        Optional<KeyAndCertificate> nextCa,
        Optional<X509Certificate> previousCa) {
    public static final String TLS_CRT = "tls.crt";
    public static final String TLS_KEY = "tls.key";
    public static final String CA_CRT = "ca.crt";
    public static final String CA_KEY = "ca.key";
    public static final String NEXT_CA_CRT = "next-ca.crt";
    public static final String NEXT_CA_KEY = "next-ca.key";
    public static final String PREVIOUS_CA_CRT = "previous-ca.crt";

    /**
     * The CAs the API server must trust, as one PEM bundle: the current CA, the next one if published, the
     * previous one while it is valid at {@code now}.
     */
    public String caBundlePem(Instant now) {
        StringBuilder bundle = new StringBuilder(pem(ca.certificate()));
        nextCa.ifPresent(next -> bundle.append(pem(next.certificate())));
        previousCa
                .filter(previous -> previous.getNotAfter().toInstant().isAfter(now))
                .ifPresent(previous -> bundle.append(pem(previous)));
        return bundle.toString();
    }

    /** The Secret's {@code data}: each PEM base64-encoded. */
    public Map<String, String> toSecretData() {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(TLS_CRT, b64(pem(serving.certificate()) + pem(ca.certificate())));
        data.put(TLS_KEY, b64(pem(serving.key())));
        data.put(CA_CRT, b64(pem(ca.certificate())));
        data.put(CA_KEY, b64(pem(ca.key())));
        nextCa.ifPresent(next -> {
            data.put(NEXT_CA_CRT, b64(pem(next.certificate())));
            data.put(NEXT_CA_KEY, b64(pem(next.key())));
        });
        previousCa.ifPresent(previous -> data.put(PREVIOUS_CA_CRT, b64(pem(previous))));
        return data;
    }

    /**
     * Reads a Secret's {@code data}; empty when a required key is missing or does not parse (the caller then
     * makes a new pair).
     */
    public static Optional<WebhookKeyMaterial> fromSecretData(Map<String, String> data) {
        if (data == null) {
            return Optional.empty();
        }
        try {
            Optional<KeyAndCertificate> ca = pair(data, CA_CRT, CA_KEY);
            Optional<KeyAndCertificate> serving = pair(data, TLS_CRT, TLS_KEY);
            if (ca.isEmpty() || serving.isEmpty()) {
                return Optional.empty();
            }
            Optional<X509Certificate> previous = data.containsKey(PREVIOUS_CA_CRT)
                    ? Optional.of(certificates(unb64(data.get(PREVIOUS_CA_CRT))).get(0))
                    : Optional.empty();
            return Optional.of(
                    new WebhookKeyMaterial(ca.get(), serving.get(), pair(data, NEXT_CA_CRT, NEXT_CA_KEY), previous));
        } catch (IOException | GeneralSecurityException | IllegalArgumentException | IndexOutOfBoundsException e) {
            return Optional.empty();
        }
    }

    /** The serving certificate followed by its CA, as a TLS server sends them. */
    public List<X509Certificate> servingChain() {
        return List.of(serving.certificate(), ca.certificate());
    }

    @Override
    public String toString() {
        return "WebhookKeyMaterial[ca " + ca.serial() + ", serving " + serving.serial() + " until " + serving.notAfter()
                + nextCa.map(n -> ", next ca " + n.serial()).orElse("") + "]";
    }

    private static Optional<KeyAndCertificate> pair(Map<String, String> data, String certificateKey, String keyKey)
            throws IOException, GeneralSecurityException {
        if (!data.containsKey(certificateKey) || !data.containsKey(keyKey)) {
            return Optional.empty();
        }
        List<X509Certificate> certificates = certificates(unb64(data.get(certificateKey)));
        PrivateKey key = privateKey(unb64(data.get(keyKey)));
        return certificates.isEmpty() || key == null
                ? Optional.empty()
                : Optional.of(new KeyAndCertificate(key, certificates.get(0)));
    }

    /** Every CERTIFICATE block in {@code pem}, in order. */
    public static List<X509Certificate> certificates(String pem) throws IOException, GeneralSecurityException {
        List<X509Certificate> out = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (Reader reader = new StringReader(pem);
                PEMParser parser = new PEMParser(reader)) {
            for (Object item = parser.readObject(); item != null; item = parser.readObject()) {
                if (item instanceof X509CertificateHolder holder) {
                    out.add(converter.getCertificate(holder));
                }
            }
        }
        return out;
    }

    private static PrivateKey privateKey(String pem) throws IOException {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (Reader reader = new StringReader(pem);
                PEMParser parser = new PEMParser(reader)) {
            for (Object item = parser.readObject(); item != null; item = parser.readObject()) {
                if (item instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (item instanceof PEMKeyPair pair) {
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
            }
        }
        return null;
    }

    static String pem(X509Certificate certificate) {
        try {
            return block("CERTIFICATE", certificate.getEncoded());
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(PrivateKey key) {
        return block("PRIVATE KEY", key.getEncoded()); // PKCS#8
    }

    private static String block(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    private static String unb64(String value) {
        return new String(Base64.getDecoder().decode(value.trim()), java.nio.charset.StandardCharsets.US_ASCII);
    }
}
