package dev.backstage.operator.model;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A pool of Backstage workers: the operator runs it as a Deployment of the runtime image. */
@Group(BackstageTopology.GROUP)
@Version(BackstageTopology.VERSION)
@ShortNames("bwp")
@Categories("backstage")
@AdditionalPrinterColumn(
        name = "Ready",
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Replicas", jsonPath = ".status.replicas", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
        name = "Desired",
        jsonPath = ".status.desiredReplicas",
        type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
        name = "Backlog",
        jsonPath = ".status.backlog.outstanding",
        type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
        name = "DeadLetters",
        jsonPath = ".status.deadLetters.total",
        type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
        name = "Heartbeat",
        jsonPath = ".status.heartbeatTime",
        type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class BackstageWorkerPool extends CustomResource<BackstageWorkerPoolSpec, BackstageWorkerPoolStatus>
        implements Namespaced {}
