package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** A PEM CA bundle in a key of a Secret in the resource's namespace (e.g. cert-manager's {@code ca.crt}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CaBundleReference {
    @Required
    @Size(min = 1, max = 253)
    @Pattern(ResourceNames.DNS_SUBDOMAIN)
    @JsonPropertyDescription("Name of a Secret in the same namespace that holds the PEM CA bundle.")
    private String secretName;

    @Default("ca.crt")
    @Size(min = 1, max = 253)
    @Pattern("^[-._a-zA-Z0-9]+$")
    @JsonPropertyDescription("Key in that Secret whose value is the PEM CA bundle (one or more CERTIFICATE blocks).")
    private String key = "ca.crt";

    public CaBundleReference() {}

    public CaBundleReference(String secretName, String key) {
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
        return o instanceof CaBundleReference other
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
