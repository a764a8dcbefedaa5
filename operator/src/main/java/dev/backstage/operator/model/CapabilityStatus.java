package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Which backend supplies one capability, or that none does (filled by the topology reconciler). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CapabilityStatus {
    @JsonPropertyDescription("jobs, topics, delays or dedupe.")
    private String capability;

    @JsonPropertyDescription("The backend that supplies it (redis, rabbitmq, kafka); absent when missing.")
    private String backend;

    @JsonPropertyDescription("True when some backend supplies the capability.")
    private Boolean supplied;

    @JsonPropertyDescription("How it is supplied or what to set to supply it.")
    private String detail;

    public CapabilityStatus() {}

    public CapabilityStatus(String capability, String backend, Boolean supplied, String detail) {
        this.capability = capability;
        this.backend = backend;
        this.supplied = supplied;
        this.detail = detail;
    }

    public String getCapability() {
        return capability;
    }

    public void setCapability(String capability) {
        this.capability = capability;
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public Boolean getSupplied() {
        return supplied;
    }

    public void setSupplied(Boolean supplied) {
        this.supplied = supplied;
    }

    public String getDetail() {
        return detail;
    }

    public void setDetail(String detail) {
        this.detail = detail;
    }
}
