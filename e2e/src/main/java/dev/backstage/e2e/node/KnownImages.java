package dev.backstage.e2e.node;

import java.io.File;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The images this node can run, as JVMs on this machine's build output instead of container layers: what
 * {@code bin/build-images} would put in {@code backstage-operator}, {@code backstage-runtime} and
 * {@code backstage-sample-tasks} (see {@code docker/}). An image is known by its repository's last path
 * element, whatever the registry and tag ({@code ghcr.io/acme/backstage-sample-tasks:0.1.0} is
 * {@code backstage-sample-tasks}).
 *
 * <p>A container cannot have a network namespace here, so every container port is mapped to a free port of
 * this machine, and the image's own setting for that port (an environment variable) is set to it.
 */
public final class KnownImages {

    /** What an image runs: its main class, its class path, and the environment variable of each container port. */
    public record Image(String name, String mainClass, String classPath, Map<Integer, String> portVariables) {}

    private final Map<String, Image> images;

    private KnownImages(Map<String, Image> images) {
        this.images = images;
    }

    /** The images, each on the class path of this JVM (which holds the operator, the runtime and the sample tasks). */
    public static KnownImages fromThisClassPath() {
        String all = System.getProperty("java.class.path");
        String withoutTasks = Arrays.stream(all.split(File.pathSeparator))
                .filter(entry -> !entry.contains("sample-tasks"))
                .collect(Collectors.joining(File.pathSeparator));
        Image operator = new Image(
                "backstage-operator",
                "dev.backstage.operator.main.OperatorMain",
                all,
                Map.of(8081, "BACKSTAGE_HTTP_PORT", 8443, "BACKSTAGE_WEBHOOK_PORT", 8082, "BACKSTAGE_CONSOLE_PORT"));
        Image runtime = new Image(
                "backstage-runtime",
                "dev.backstage.runtime.main.RuntimeMain",
                withoutTasks,
                Map.of(8080, "BACKSTAGE_HTTP_PORT"));
        Image sampleTasks = new Image(
                "backstage-sample-tasks",
                "dev.backstage.runtime.main.RuntimeMain",
                all,
                Map.of(8080, "BACKSTAGE_HTTP_PORT"));
        return new KnownImages(
                Map.of(operator.name(), operator, runtime.name(), runtime, sampleTasks.name(), sampleTasks));
    }

    /** The image a container reference names, if this node knows it. */
    public Optional<Image> resolve(String reference) {
        return Optional.ofNullable(images.get(repositoryName(reference)));
    }

    /** The names this node knows, for the message of an unknown image. */
    public List<String> names() {
        return images.keySet().stream().sorted().toList();
    }

    /** {@code registry:5000/team/name:tag@sha256:…} → {@code name}. */
    static String repositoryName(String reference) {
        String ref = reference;
        int digest = ref.indexOf('@');
        if (digest >= 0) {
            ref = ref.substring(0, digest);
        }
        int slash = ref.lastIndexOf('/');
        String last = slash >= 0 ? ref.substring(slash + 1) : ref;
        int colon = last.indexOf(':');
        return colon >= 0 ? last.substring(0, colon) : last;
    }
}
