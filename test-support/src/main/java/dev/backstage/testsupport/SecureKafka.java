package dev.backstage.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * An in-process Kafka of one test class's own with secured listeners, all advertised as {@code localhost}, certificates
 * from {@link TestCertificates}:
 * <ul>
 *   <li>{@value #SASL_SSL}: SASL_SSL, SCRAM-SHA-512, the good server certificate;
 *   <li>{@value #MTLS}: SSL with client certificates required (the principal is the certificate's subject);
 *   <li>{@value #WRONG_HOST} and {@value #EXPIRED}: SASL_SSL serving the wrong-host and the expired certificate.
 * </ul>
 * The standard authorizer is on and nothing is allowed without an ACL; the plaintext {@link #bootstrapServers()}
 * listener (inter-broker, and this fixture's admin) is a super user. SCRAM users and ACLs are made through it.
 */
public final class SecureKafka implements AutoCloseable {
    public static final String SASL_SSL = "SECURE";
    public static final String MTLS = "MTLS";
    public static final String WRONG_HOST = "WRONGHOST";
    public static final String EXPIRED = "EXPIRED";

    private final EmbeddedKafka kafka;
    private final Admin admin;

    private SecureKafka(EmbeddedKafka kafka) {
        this.kafka = kafka;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
    }

    public static SecureKafka start(TestCertificates certificates) {
        Map<String, String> listeners = new LinkedHashMap<>();
        listeners.put(SASL_SSL, "SASL_SSL");
        listeners.put(MTLS, "SSL");
        listeners.put(WRONG_HOST, "SASL_SSL");
        listeners.put(EXPIRED, "SASL_SSL");
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        extra.put("super.users", "User:ANONYMOUS");
        extra.put("allow.everyone.if.no.acl.found", "false");
        extra.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        serve(extra, SASL_SSL, certificates, "server");
        serve(extra, MTLS, certificates, "server");
        serve(extra, WRONG_HOST, certificates, "wronghost");
        serve(extra, EXPIRED, certificates, "expired");
        String ca = read(certificates.ca());
        extra.put(listener(MTLS) + "ssl.client.auth", "required");
        extra.put(listener(MTLS) + "ssl.truststore.type", "PEM");
        extra.put(listener(MTLS) + "ssl.truststore.certificates", ca);
        for (String name : List.of(SASL_SSL, WRONG_HOST, EXPIRED)) {
            extra.put(
                    listener(name) + "scram-sha-512.sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        }
        return new SecureKafka(EmbeddedKafka.startWith(listeners, extra));
    }

    private static void serve(
            Map<String, String> extra, String name, TestCertificates certificates, String certificate) {
        extra.put(listener(name) + "ssl.keystore.type", "PEM");
        extra.put(listener(name) + "ssl.keystore.certificate.chain", read(certificates.certificate(certificate)));
        extra.put(listener(name) + "ssl.keystore.key", read(certificates.key(certificate)));
    }

    private static String listener(String name) {
        return "listener.name." + name.toLowerCase(java.util.Locale.ROOT) + ".";
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The super-user plaintext listener, for setting up and asserting on the broker's own state. */
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** {@code localhost:<port>} of a secured listener. */
    public String address(String listener) {
        return "localhost:" + kafka.port(listener);
    }

    /** A super-user admin client on the plaintext listener. */
    public Admin admin() {
        return admin;
    }

    /** Creates (or resets) a SCRAM-SHA-512 user. */
    public void addScramUser(String user, String password) {
        try {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create SCRAM user " + user, e);
        }
    }

    /** Adds ACLs and waits until the broker has them. */
    public void allow(Collection<AclBinding> bindings) {
        try {
            admin.createAcls(new ArrayList<>(bindings)).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create ACLs", e);
        }
    }

    /**
     * The least privilege of a Backstage worker (and of the operator's declarer and probe) on Kafka: on topics
     * prefixed {@code prefix.}: Create, Describe, Read, Write (and Delete for the declarer's delete policy); on groups
     * prefixed {@code prefix.} (topic subscriptions, redrive) and the jobs group {@code group}: Read, Describe; nothing
     * on the cluster.
     */
    public static List<AclBinding> workerAcls(String principal, String prefix, String group) {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation op : List.of(
                AclOperation.CREATE,
                AclOperation.DESCRIBE,
                AclOperation.READ,
                AclOperation.WRITE,
                AclOperation.DELETE)) {
            acls.add(allow(principal, ResourceType.TOPIC, prefix + ".", PatternType.PREFIXED, op));
        }
        for (AclOperation op : List.of(AclOperation.READ, AclOperation.DESCRIBE)) {
            acls.add(allow(principal, ResourceType.GROUP, prefix + ".", PatternType.PREFIXED, op));
            acls.add(allow(principal, ResourceType.GROUP, group, PatternType.LITERAL, op));
        }
        return acls;
    }

    private static AclBinding allow(
            String principal, ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(
                new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
    }

    @Override
    public void close() {
        admin.close();
        kafka.close();
    }
}
