package dev.backstage.operator.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.ReadyReason;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class BrokerFailuresTest {
    @Test
    void givenAConnectExceptionInTheChain_thenBrokerUnreachable() {
        RuntimeException failure =
                new RuntimeException("Unable to connect", new ConnectException("Connection refused"));
        TopologyProblem problem = BrokerFailures.classify("connecting to redis", failure, SecretScrubber.none());
        assertEquals(ReadyReason.BROKER_UNREACHABLE, problem.reason());
        assertEquals(
                "connecting to redis: Unable to connect (ConnectException: Connection refused)", problem.getMessage());
    }

    @Test
    void givenAnAuthFailureWrappedInAConnectFailure_thenAuthenticationFailed() {
        RuntimeException failure = new RuntimeException(
                "Unable to connect to host:6379",
                new IllegalStateException("WRONGPASS invalid username-password pair"));
        assertEquals(ReadyReason.AUTHENTICATION_FAILED, BrokerFailures.reason(failure));
        assertEquals(
                ReadyReason.AUTHENTICATION_FAILED,
                BrokerFailures.reasonForMessage("ACCESS_REFUSED - Login was refused"));
    }

    @Test
    void givenBrokerMessages_thenTheReasonFollowsWhatTheBrokerSaid() {
        assertEquals(
                ReadyReason.CONFLICT,
                BrokerFailures.reasonForMessage("WRONGTYPE Operation against a key holding the wrong kind of value"));
        assertEquals(
                ReadyReason.CONFLICT,
                BrokerFailures.reasonForMessage(
                        "PRECONDITION_FAILED - inequivalent arg 'x-message-ttl' for queue 'q'"));
        assertEquals(
                ReadyReason.INVALID_SPEC,
                BrokerFailures.reasonForMessage(
                        "InvalidReplicationFactorException: Replication factor: 3 larger than available brokers: 1"));
        assertEquals(ReadyReason.BROKER_UNREACHABLE, BrokerFailures.reason(new TimeoutException("describeCluster")));
        assertEquals(ReadyReason.DECLARATION_FAILED, BrokerFailures.reasonForMessage("something else went wrong"));
    }

    @Test
    void givenASecretInTheMessage_thenTheProblemIsScrubbed() {
        TopologyProblem problem = BrokerFailures.classify(
                "connecting to redis",
                new IllegalStateException("bad url redis://:topsecret@host:6379"),
                SecretScrubber.forUrls("redis://:topsecret@host:6379"));
        assertTrue(!problem.getMessage().contains("topsecret"), problem.getMessage());
    }
}
