package dev.backstage.operator.certificates;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What to renew, decided from the stored key material, the wanted host names and the time: pure, no I/O.
 *
 * <p>A certificate is due for renewal when less than a third of its lifetime is left. The serving certificate is
 * simply reissued by the current CA: the caBundle does not change. A CA due for renewal is replaced in two steps, so
 * the API server trusts a CA before any replica serves what it signed: first the next CA is published (in the
 * Secret and the caBundle) while the serving certificate stays; {@code promotionDelay} later (time for every
 * replica to see the new caBundle patched) it signs a new serving certificate and the old CA becomes the previous
 * one, kept in the caBundle until it expires.
 *
 * @param caValidity      lifetime of a new CA
 * @param servingValidity lifetime of a new serving certificate (never past its CA)
 * @param promotionDelay  how long a published next CA waits before it signs
 */
public record RotationPlan(Duration caValidity, Duration servingValidity, Duration promotionDelay) {
    public RotationPlan {
        Objects.requireNonNull(caValidity, "caValidity");
        Objects.requireNonNull(servingValidity, "servingValidity");
        Objects.requireNonNull(promotionDelay, "promotionDelay");
        if (caValidity.compareTo(servingValidity) < 0) {
            throw new IllegalArgumentException("the webhook CA's validity (" + caValidity + ") must be at least the"
                    + " serving certificate's (" + servingValidity + ")");
        }
    }

    /**
     * A change to write, with why.
     *
     * @param material what the Secret holds next
     * @param reason   one line for the log
     */
    public record Change(WebhookKeyMaterial material, String reason) {}

    /** The material to store instead of {@code stored}; empty when it stays as it is. */
    public Optional<Change> decide(
            Optional<WebhookKeyMaterial> stored, List<String> hostNames, String caName, Instant now) {
        if (stored.isEmpty()) {
            return Optional.of(new Change(fresh(hostNames, caName, now), "no valid key material stored"));
        }
        WebhookKeyMaterial current = stored.get();
        KeyAndCertificate ca = current.ca();
        if (!ca.notAfter().isAfter(now) || !signedBy(current.serving().certificate(), ca.certificate())) {
            return Optional.of(new Change(
                    fresh(hostNames, caName, now), "the CA expired or did not sign the serving" + " certificate"));
        }
        if (current.nextCa().isPresent()) {
            KeyAndCertificate next = current.nextCa().get();
            if (!now.isBefore(next.notBefore().plus(CertificateIssuer.BACKDATE).plus(promotionDelay))) {
                return Optional.of(new Change(
                        new WebhookKeyMaterial(
                                next,
                                CertificateIssuer.issueServing(next, hostNames, servingValidity, now),
                                Optional.empty(),
                                Optional.of(ca.certificate())),
                        "the next CA " + next.serial() + " takes over from " + ca.serial()));
            }
        } else if (due(ca, now)) {
            KeyAndCertificate next = CertificateIssuer.newCa(caName, caValidity, now);
            return Optional.of(new Change(
                    new WebhookKeyMaterial(ca, current.serving(), Optional.of(next), current.previousCa()),
                    "the CA " + ca.serial() + " is due for renewal: next CA " + next.serial() + " published"));
        }
        if (due(current.serving(), now)
                || !hostNames(current.serving().certificate()).equals(normalized(hostNames))) {
            return Optional.of(new Change(
                    new WebhookKeyMaterial(
                            ca,
                            CertificateIssuer.issueServing(ca, hostNames, servingValidity, now),
                            current.nextCa(),
                            current.previousCa()),
                    "the serving certificate " + current.serving().serial()
                            + " is due for renewal or names other hosts"));
        }
        return Optional.empty();
    }

    /** Less than a third of the certificate's lifetime (from issue, not from its backdated start) left at {@code now}. */
    static boolean due(KeyAndCertificate pair, Instant now) {
        Duration lifetime = Duration.between(pair.notBefore().plus(CertificateIssuer.BACKDATE), pair.notAfter());
        return !now.isBefore(pair.notAfter().minus(lifetime.dividedBy(3)));
    }

    private WebhookKeyMaterial fresh(List<String> hostNames, String caName, Instant now) {
        KeyAndCertificate ca = CertificateIssuer.newCa(caName, caValidity, now);
        return new WebhookKeyMaterial(
                ca,
                CertificateIssuer.issueServing(ca, hostNames, servingValidity, now),
                Optional.empty(),
                Optional.empty());
    }

    private static boolean signedBy(X509Certificate certificate, X509Certificate ca) {
        try {
            certificate.verify(ca.getPublicKey());
            return true;
        } catch (java.security.GeneralSecurityException e) {
            return false;
        }
    }

    /** IP literals as the JDK prints an IP subjectAltName, so an IPv6 name compares equal to what was issued. */
    private static Set<String> normalized(List<String> hostNames) {
        Set<String> names = new HashSet<>();
        for (String name : hostNames) {
            try {
                names.add(
                        CertificateIssuer.isIpLiteral(name)
                                ? java.net.InetAddress.getByName(name).getHostAddress()
                                : name);
            } catch (java.net.UnknownHostException e) {
                names.add(name);
            }
        }
        return names;
    }

    private static Set<String> hostNames(X509Certificate certificate) {
        Set<String> names = new HashSet<>();
        try {
            Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                alternatives.forEach(entry -> names.add(String.valueOf(entry.get(1))));
            }
        } catch (CertificateParsingException e) {
            // no names: reissued
        }
        return names;
    }
}
