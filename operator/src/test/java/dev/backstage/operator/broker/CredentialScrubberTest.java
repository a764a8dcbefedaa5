package dev.backstage.operator.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CredentialScrubberTest {
    @Test
    void givenAUrlWithCredentials_thenTheUrlItsUserInfoAndItsPasswordAreMasked() {
        CredentialScrubber scrubber = CredentialScrubber.forUrl("redis://app:s3cr%40t@redis.internal:6379/0");
        assertEquals("connect to *** failed", scrubber.scrub("connect to redis://app:s3cr%40t@redis.internal:6379/0 failed"));
        assertEquals("auth as *** refused", scrubber.scrub("auth as app:s3cr@t refused"));
        assertEquals("password *** wrong", scrubber.scrub("password s3cr@t wrong"));
    }

    @Test
    void givenAPlainUrl_thenItStaysReadable_butAnyUserInfoInTheTextIsStillMasked() {
        CredentialScrubber scrubber = CredentialScrubber.forUrl("redis://127.0.0.1:6379");
        assertEquals("redis at redis://127.0.0.1:6379 unreachable",
                scrubber.scrub("redis at redis://127.0.0.1:6379 unreachable"));
        assertEquals("amqp://***@rabbit:5672 refused", CredentialScrubber.none().scrub("amqp://guest:guest@rabbit:5672 refused"));
    }
}
