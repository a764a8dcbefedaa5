package dev.backstage.operator.certificates;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Makes the webhook's CA and serving certificates (ECDSA P-256, SHA-256): pure crypto, no I/O. Each certificate
 * starts {@link #BACKDATE} before {@code now}, so an API server whose clock is slightly behind still accepts it.
 */
public final class CertificateIssuer {
    /** How far back a certificate's validity starts. */
    public static final Duration BACKDATE = Duration.ofMinutes(1);

    private static final String SIGNATURE = "SHA256withECDSA";
    private static final SecureRandom RANDOM = new SecureRandom();

    private CertificateIssuer() {}

    /** A new self-signed CA valid for {@code validity} from {@code now}. */
    public static KeyAndCertificate newCa(String commonName, Duration validity, Instant now) {
        try {
            KeyPair keys = newKeyPair();
            X500Name subject = new X500Name("CN=" + commonName);
            JcaX509v3CertificateBuilder builder = builder(subject, subject, keys, validity, now);
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(
                    Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(keys.getPublic()));
            return new KeyAndCertificate(keys.getPrivate(), sign(builder, keys));
        } catch (GeneralSecurityException | CertIOException e) {
            throw new IllegalStateException("cannot make the webhook CA: " + e.getMessage(), e);
        }
    }

    /**
     * A serving certificate for {@code hostNames} (DNS names, or IP literals which become IP addresses in the
     * subjectAltName) signed by {@code ca}, valid for {@code validity} from {@code now} but never past the CA.
     */
    public static KeyAndCertificate issueServing(
            KeyAndCertificate ca, List<String> hostNames, Duration validity, Instant now) {
        if (hostNames.isEmpty()) {
            throw new IllegalArgumentException("a serving certificate needs at least one host name");
        }
        try {
            KeyPair keys = newKeyPair();
            Instant caEnd = ca.certificate().getNotAfter().toInstant();
            Duration bounded = now.plus(validity).isAfter(caEnd) ? Duration.between(now, caEnd) : validity;
            JcaX509v3CertificateBuilder builder = builder(
                    X500Name.getInstance(
                            ca.certificate().getSubjectX500Principal().getEncoded()),
                    new X500Name("CN=" + hostNames.get(0)),
                    keys,
                    bounded,
                    now);
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            builder.addExtension(
                    Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
            builder.addExtension(
                    Extension.authorityKeyIdentifier, false, extensions.createAuthorityKeyIdentifier(ca.certificate()));
            builder.addExtension(
                    Extension.subjectAlternativeName,
                    false,
                    new GeneralNames(hostNames.stream()
                            .map(CertificateIssuer::generalName)
                            .toArray(GeneralName[]::new)));
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(ca.key())));
            return new KeyAndCertificate(keys.getPrivate(), certificate);
        } catch (GeneralSecurityException | CertIOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot issue the webhook serving certificate: " + e.getMessage(), e);
        }
    }

    private static GeneralName generalName(String host) {
        return isIpLiteral(host)
                ? new GeneralName(GeneralName.iPAddress, host)
                : new GeneralName(GeneralName.dNSName, host);
    }

    /** An IPv4 dotted quad or an IPv6 literal (a colon never appears in a DNS name). */
    static boolean isIpLiteral(String host) {
        if (host.contains(":")) {
            return true;
        }
        if (!host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
            return false;
        }
        try {
            return InetAddress.getByName(host) != null; // a literal: parsed, never resolved
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static JcaX509v3CertificateBuilder builder(
            X500Name issuer, X500Name subject, KeyPair keys, Duration validity, Instant now) {
        return new JcaX509v3CertificateBuilder(
                issuer,
                new BigInteger(127, RANDOM).add(BigInteger.ONE),
                Date.from(now.minus(BACKDATE)),
                Date.from(now.plus(validity)),
                subject,
                keys.getPublic());
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder builder, KeyPair keys)
            throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(keys.getPrivate())));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }
}
