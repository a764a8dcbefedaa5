package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What happens to broker objects when their topology is deleted. */
public enum DeletionPolicy {
    /** Leave queues, streams and topics (and the jobs in them) on the broker. The default: data outlives manifests. */
    @JsonProperty("retain")
    RETAIN,
    /** Delete the declared broker objects, through a finalizer. */
    @JsonProperty("delete")
    DELETE
}
