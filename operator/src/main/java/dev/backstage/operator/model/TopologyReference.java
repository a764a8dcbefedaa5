package dev.backstage.operator.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** Names a BackstageTopology in the pool's own namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TopologyReference {
    @Required
    @Size(min = 1, max = 253)
    @Pattern(ResourceNames.DNS_SUBDOMAIN)
    @JsonPropertyDescription("Name of a BackstageTopology in the same namespace.")
    private String name;

    public TopologyReference() {}

    public TopologyReference(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
