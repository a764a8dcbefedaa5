package dev.backstage.operator.model;

/**
 * Name patterns shared by the CR schemas (constants so annotations can use them); the rules of broker names are in
 * {@link BrokerNameRules}.
 */
public final class ResourceNames {
    /** A Kubernetes object name (RFC 1123 subdomain). */
    public static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

    private ResourceNames() {}
}
