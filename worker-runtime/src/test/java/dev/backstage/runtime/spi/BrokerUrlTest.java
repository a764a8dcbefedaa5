package dev.backstage.runtime.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every provider's URL read strictly, and credentials masked whatever the URL's shape. */
class BrokerUrlTest {
    private static final String SECRET = "Zq9secret";

    private static void assertRefused(String url, BrokerUrl.Rules rules, String fix) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> BrokerUrl.parse(url, rules), url);
        assertTrue(e.getMessage().contains(fix), url + " -> " + e.getMessage());
        assertFalse(e.getMessage().contains(SECRET), url + " -> " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"), url + " -> " + e.getMessage());
    }

    @Test
    void givenAKafkaUrlWithCredentialsButNoScheme_thenItIsRefusedWithoutShowingThePassword() {
        assertRefused("user:" + SECRET + "@127.0.0.1:9092", BrokerUrl.KAFKA, "no kafka:// scheme");
    }

    @Test
    void givenAnUnencodedAtSignInThePassword_thenEveryProviderRefusesIt() {
        assertRefused("kafka://user:" + SECRET + "@x@127.0.0.1:9092", BrokerUrl.KAFKA, "write them as %40");
        assertRefused("amqp://guest:" + SECRET + "@x@127.0.0.1:5672", BrokerUrl.RABBITMQ, "write them as %40");
        assertRefused("redis://:" + SECRET + "@x@127.0.0.1:6379", BrokerUrl.REDIS, "write them as %40");
        assertRefused("amqp://guest:" + SECRET + "/x@127.0.0.1:5672", BrokerUrl.RABBITMQ, "%2F");
    }

    @Test
    void givenANonNumericOrOutOfRangePort_thenTheUrlIsRefused() {
        assertRefused("amqp://guest:" + SECRET + "@127.0.0.1:abc", BrokerUrl.RABBITMQ, "port that is not a number");
        assertRefused("amqp://guest:" + SECRET + "@127.0.0.1:70000/", BrokerUrl.RABBITMQ, "from 1 to 65535");
        assertRefused("amqp://guest:" + SECRET, BrokerUrl.RABBITMQ, "port that is not a number");
        assertRefused("redis://127.0.0.1:", BrokerUrl.REDIS, "port that is not a number");
    }

    @Test
    void givenAMissingHostSchemeOrABadEscape_thenTheUrlIsRefused() {
        assertRefused("amqp://guest:" + SECRET + "@/vhost", BrokerUrl.RABBITMQ, "has no host");
        assertRefused("http://127.0.0.1:5672", BrokerUrl.RABBITMQ, "must start with amqp:// or amqps://");
        assertRefused("127.0.0.1:6379", BrokerUrl.REDIS, "must start with redis:// or rediss://");
        assertRefused("redis://:" + SECRET + "%zz@127.0.0.1", BrokerUrl.REDIS, "write '%' as %25");
        assertRefused("redis://127.0.0.1:6379 ", BrokerUrl.REDIS, "contains a space");
        assertRefused("redis://a:6379,b:6379", BrokerUrl.REDIS, "more than one host");
        assertRefused("kafka://h<script>:9092", BrokerUrl.KAFKA, "invalid host name");
        assertRefused("", BrokerUrl.KAFKA, "is empty");
    }

    @Test
    void givenWellFormedUrls_thenTheyAreReadWithDecodedCredentialsAndDefaultPorts() {
        BrokerUrl amqp = BrokerUrl.parse("amqp://us%40er:p%40ss%2Fw@rabbit.example:5673/vh", BrokerUrl.RABBITMQ);
        assertEquals("us@er", amqp.username());
        assertEquals("p@ss/w", amqp.password());
        assertEquals(List.of("rabbit.example:5673"), amqp.hosts());
        assertEquals("/vh", amqp.path());
        assertEquals(
                List.of("h:5671"),
                BrokerUrl.parse("amqps://h", BrokerUrl.RABBITMQ).hosts());
        assertEquals(
                List.of("a:9092", "[::1]:9093"),
                BrokerUrl.parse("a,[::1]:9093", BrokerUrl.KAFKA).hosts());
        BrokerUrl redis = BrokerUrl.parse("redis://:pw@127.0.0.1", BrokerUrl.REDIS);
        assertEquals("", redis.username());
        assertEquals("pw", redis.password());
        assertEquals(List.of("127.0.0.1:6379"), redis.hosts());
        assertNull(BrokerUrl.parse("redis://127.0.0.1", BrokerUrl.REDIS).password());
        assertFalse(amqp.toString().contains("p@ss"), amqp.toString());
    }

    @Test
    void givenAnyUrlShape_whenRedacted_thenTheCredentialsAreHidden() {
        for (String url : List.of(
                "user:" + SECRET + "@h:9092",
                "kafka://user:" + SECRET + "@x@h:9092",
                "amqp://guest:" + SECRET + "@x@h:abc",
                "amqp://guest:" + SECRET + "/x@h:5672",
                "redis://:" + SECRET + "@h:6379/0",
                "redis://h:6379/0?password=" + SECRET,
                "u:" + SECRET + "@h1:9092,h2:9092")) {
            String redacted = Redaction.url(url);
            assertFalse(redacted.contains(SECRET), url + " -> " + redacted);
            assertTrue(redacted.contains("h"), redacted);
            String text = Redaction.text("cannot connect to " + url + " (password " + SECRET + ")", url);
            assertFalse(text.contains(SECRET), url + " -> " + text);
        }
        assertEquals("amqp://***@h:5672/v", Redaction.url("amqp://g:p@x@h:5672/v"));
        assertEquals("***@h1:9092,h2:9092", Redaction.url("u:p@h1:9092,h2:9092"));
        assertEquals("redis://127.0.0.1:6379", Redaction.url("redis://127.0.0.1:6379"));
        assertEquals("error at ***", Redaction.text("error at p%40ss", "amqp://u:p%40ss@h"));
        assertEquals("error at ***", Redaction.text("error at p@ss", "amqp://u:p%40ss@h"));
    }
}
