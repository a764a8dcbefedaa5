package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/**
 * Where a connection URL lives: a key of a Secret in the resource's namespace. Connection URLs carry
 * credentials, so the CRDs never take them inline; the worker Deployment maps the key into an env var.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecretKeyReference {
    @Required
    @Size(min = 1, max = 253)
    @Pattern(ResourceNames.DNS_SUBDOMAIN)
    @JsonPropertyDescription("Name of a Secret in the same namespace that holds the connection URL.")
    private String secretName;

    @Default("url")
    @Size(min = 1, max = 253)
    @Pattern("^[-._a-zA-Z0-9]+$")
    @JsonPropertyDescription(
            "Key in that Secret whose value is the connection URL (redis://…, amqp://…, or a Kafka bootstrap list).")
    private String key = "url";

    public SecretKeyReference() {}

    public SecretKeyReference(String secretName, String key) {
        this.secretName = secretName;
        this.key = key;
    }

    public String getSecretName() {
        return secretName;
    }

    public void setSecretName(String secretName) {
        this.secretName = secretName;
    }

    public String getKey() {
        return key;
    }

    public void setKey(String key) {
        this.key = key;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SecretKeyReference other
                && Objects.equals(secretName, other.secretName)
                && Objects.equals(key, other.key);
    }

    @Override
    public int hashCode() {
        return Objects.hash(secretName, key);
    }

    @Override
    public String toString() {
        return "secret " + secretName + "/" + key;
    }
}
