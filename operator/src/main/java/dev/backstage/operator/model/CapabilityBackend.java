package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.backstage.runtime.spi.BrokerNames;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** A capability (delays, dedupe) supplied by a backend other than the topology's provider, e.g. Redis delays for Kafka jobs. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CapabilityBackend {
    @Required
    @JsonPropertyDescription("The backend that supplies the capability (today: redis).")
    private ProviderType backend;

    @Required
    @JsonPropertyDescription("Secret key holding the backend's connection URL.")
    private SecretKeyReference connection;

    @Size(min = 1, max = BrokerNames.PREFIX_MAX_LENGTH)
    @ValidationRule(value = BrokerNameRules.PREFIX, message = BrokerNameRules.PREFIX_MESSAGE)
    @JsonPropertyDescription("Key prefix on the backend; defaults to the topology's keyPrefix.")
    private String keyPrefix;

    @JsonPropertyDescription("TLS for the backend's connection (rediss://): CA bundle and client certificate Secrets.")
    private TlsSpec tls;

    public TlsSpec getTls() {
        return tls;
    }

    public void setTls(TlsSpec tls) {
        this.tls = tls;
    }

    public CapabilityBackend() {}

    public CapabilityBackend(ProviderType backend, SecretKeyReference connection, String keyPrefix) {
        this.backend = backend;
        this.connection = connection;
        this.keyPrefix = keyPrefix;
    }

    public ProviderType getBackend() {
        return backend;
    }

    public void setBackend(ProviderType backend) {
        this.backend = backend;
    }

    public SecretKeyReference getConnection() {
        return connection;
    }

    public void setConnection(SecretKeyReference connection) {
        this.connection = connection;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }
}
