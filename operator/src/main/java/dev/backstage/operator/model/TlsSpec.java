package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/**
 * TLS material for a broker connection, by Secret reference: the CA bundle that signs the broker's certificate and
 * the client certificate to present. The URL's scheme (rediss://, amqps://) or, for Kafka, this section turns TLS on;
 * the operator mounts the Secrets read-only into worker pods and uses them for its own connections.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TlsSpec {
    @JsonPropertyDescription(
            "The PEM CA bundle to trust for the broker's certificate; omit to trust the JVM's default roots.")
    private CaBundleReference caBundle;

    @Size(min = 1, max = 253)
    @Pattern(ResourceNames.DNS_SUBDOMAIN)
    @JsonPropertyDescription("A kubernetes.io/tls Secret (tls.crt, tls.key; PEM) with the client certificate to present"
            + " (mutual TLS, e.g. Kafka SSL client authentication).")
    private String clientCertificateSecret;

    public TlsSpec() {}

    public TlsSpec(CaBundleReference caBundle, String clientCertificateSecret) {
        this.caBundle = caBundle;
        this.clientCertificateSecret = clientCertificateSecret;
    }

    public CaBundleReference getCaBundle() {
        return caBundle;
    }

    public void setCaBundle(CaBundleReference caBundle) {
        this.caBundle = caBundle;
    }

    public String getClientCertificateSecret() {
        return clientCertificateSecret;
    }

    public void setClientCertificateSecret(String clientCertificateSecret) {
        this.clientCertificateSecret = clientCertificateSecret;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TlsSpec other
                && Objects.equals(caBundle, other.caBundle)
                && Objects.equals(clientCertificateSecret, other.clientCertificateSecret);
    }

    @Override
    public int hashCode() {
        return Objects.hash(caBundle, clientCertificateSecret);
    }

    @Override
    public String toString() {
        return "tls[ca=" + caBundle + ", client=" + clientCertificateSecret + "]";
    }
}
