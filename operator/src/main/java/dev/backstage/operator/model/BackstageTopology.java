package dev.backstage.operator.model;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** Declares the broker side of Backstage: provider, connection, queues, topics and supplied capabilities. */
@Group(BackstageTopology.GROUP)
@Version(BackstageTopology.VERSION)
@ShortNames("btp")
@Categories("backstage")
@AdditionalPrinterColumn(name = "Provider", jsonPath = ".spec.provider", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Ready",
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Schedules",
        jsonPath = ".status.scheduleSummary",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Last Fired",
        jsonPath = ".status.lastFiredTick",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class BackstageTopology extends CustomResource<BackstageTopologySpec, BackstageTopologyStatus>
        implements Namespaced {
    public static final String GROUP = "backstage.dev";
    public static final String VERSION = "v1alpha1";
}
