package dev.backstage.operator.certificates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The rotation decisions on their own (no API server): when a pair is made, reissued, when a next CA is published
 * and when it takes over, and that the caBundle always trusts what is served.
 */
class RotationPlanTest {
    private static final List<String> HOSTS = List.of("webhook.ns.svc", "127.0.0.1");
    private static final Instant T0 = Instant.parse("2026-12-03T00:00:00Z");
    private final RotationPlan plan =
            new RotationPlan(Duration.ofHours(30), Duration.ofHours(12), Duration.ofMinutes(5));

    @Test
    void givenNothingStored_whenDecided_thenAFreshCaAndServingPairTrustedByTheBundle() throws Exception {
        WebhookKeyMaterial made =
                plan.decide(Optional.empty(), HOSTS, "ca", T0).orElseThrow().material();

        made.serving().certificate().verify(made.ca().certificate().getPublicKey());
        assertEquals(List.of(made.ca().certificate()), WebhookKeyMaterial.certificates(made.caBundlePem(T0)));
        assertEquals(
                Optional.empty(),
                plan.decide(Optional.of(made), HOSTS, "ca", T0.plusSeconds(60)),
                "a fresh pair is kept");
    }

    @Test
    void givenTheServingCertificateTwoThirdsThrough_whenDecided_thenReissuedByTheSameCa() throws Exception {
        WebhookKeyMaterial made =
                plan.decide(Optional.empty(), HOSTS, "ca", T0).orElseThrow().material();

        assertEquals(Optional.empty(), plan.decide(Optional.of(made), HOSTS, "ca", T0.plus(Duration.ofHours(7))));
        WebhookKeyMaterial renewed = plan.decide(Optional.of(made), HOSTS, "ca", T0.plus(Duration.ofHours(8)))
                .orElseThrow()
                .material();

        assertNotEquals(made.serving().serial(), renewed.serving().serial());
        assertEquals(made.ca().serial(), renewed.ca().serial());
        assertEquals(made.caBundlePem(T0), renewed.caBundlePem(T0), "the caBundle does not change");
    }

    @Test
    void givenTheCaTwoThirdsThrough_whenDecided_thenTheNextCaIsTrustedBeforeItSignsAndTheOldStaysTrusted()
            throws Exception {
        WebhookKeyMaterial made =
                plan.decide(Optional.empty(), HOSTS, "ca", T0).orElseThrow().material();
        Instant caDue = T0.plus(Duration.ofHours(20));

        WebhookKeyMaterial published =
                plan.decide(Optional.of(made), HOSTS, "ca", caDue).orElseThrow().material();
        assertTrue(published.nextCa().isPresent());
        assertEquals(made.serving().serial(), published.serving().serial(), "the next CA signs nothing yet");
        assertEquals(
                2, WebhookKeyMaterial.certificates(published.caBundlePem(caDue)).size());
        plan.decide(Optional.of(published), HOSTS, "ca", caDue.plusSeconds(60))
                .ifPresent(early -> assertEquals(
                        made.ca().serial(),
                        early.material().ca().serial(),
                        "the next CA waits for the promotion delay"));

        Instant promoted = caDue.plus(Duration.ofMinutes(5));
        WebhookKeyMaterial after = plan.decide(Optional.of(published), HOSTS, "ca", promoted)
                .orElseThrow()
                .material();
        assertEquals(published.nextCa().get().serial(), after.ca().serial());
        after.serving().certificate().verify(after.ca().certificate().getPublicKey());
        List<java.security.cert.X509Certificate> bundle = WebhookKeyMaterial.certificates(after.caBundlePem(promoted));
        assertTrue(bundle.contains(made.ca().certificate()), "a replica still serving the old pair stays trusted");
        assertTrue(bundle.contains(after.ca().certificate()));
    }

    @Test
    void givenOtherHostNames_whenDecided_thenTheServingCertificateIsReissued() {
        WebhookKeyMaterial made =
                plan.decide(Optional.empty(), HOSTS, "ca", T0).orElseThrow().material();

        assertTrue(plan.decide(Optional.of(made), List.of("other.ns.svc"), "ca", T0.plusSeconds(60))
                .isPresent());
    }

    @Test
    void givenStoredMaterial_whenWrittenAndReadBack_thenTheSamePairs() {
        WebhookKeyMaterial made =
                plan.decide(Optional.empty(), HOSTS, "ca", T0).orElseThrow().material();

        WebhookKeyMaterial read =
                WebhookKeyMaterial.fromSecretData(made.toSecretData()).orElseThrow();

        assertEquals(made.serving().certificate(), read.serving().certificate());
        assertEquals(made.ca().key(), read.ca().key());
        assertEquals(Optional.empty(), WebhookKeyMaterial.fromSecretData(java.util.Map.of("tls.crt", "bm9uZQ==")));
        assertTrue(!made.toString().contains("PRIVATE"), "toString shows no key");
    }
}
