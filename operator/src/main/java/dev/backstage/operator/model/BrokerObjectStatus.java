package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One declared broker object and its last known state (filled by the topology reconciler). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BrokerObjectStatus {
    @JsonPropertyDescription("e.g. stream, consumer-group, queue, exchange, topic.")
    private String kind;

    @JsonPropertyDescription("The broker-side name.")
    private String name;

    @JsonPropertyDescription("Created, Existed, Missing, Deleted or Failed.")
    private String state;

    @JsonPropertyDescription("Why, when the state is not plain (e.g. the broker's error).")
    private String detail;

    public BrokerObjectStatus() {}

    public BrokerObjectStatus(String kind, String name, String state, String detail) {
        this.kind = kind;
        this.name = name;
        this.state = state;
        this.detail = detail;
    }

    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getState() {
        return state;
    }

    public void setState(String state) {
        this.state = state;
    }

    public String getDetail() {
        return detail;
    }

    public void setDetail(String detail) {
        this.detail = detail;
    }
}
