package dev.backstage.e2e.node;

import java.io.File;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The images this node can run, as JVMs on this machine's build output instead of container layers: what
 * {@code bin/build-images} would put in {@code backstage-operator}, {@code backstage-runtime} and
 * {@code backstage-sample-tasks} (see {@code docker/}). An image is known by its repository's last path
 * element, whatever the registry and tag ({@code ghcr.io/acme/backstage-sample-tasks:0.1.0} is
 * {@code backstage-sample-tasks}), unless a build is registered for that exact repository and tag
 * ({@link #registerOperator}): {@code backstage-operator:pinned-7e1683a} then runs the operator of that earlier
 * commit while every other tag still runs this build's.
 *
 * <p>A container cannot have a network namespace here, so every container port is mapped to a free port of
 * this machine, and the image's own setting for that port (an environment variable) is set to it.
 */
public final class KnownImages {

    /**
     * What an image runs: its main class, its class path, and the environment variable of each container port. The
     * name is the repository's, or {@code repository:tag} for a registered tag (the node reports it as the
     * container's image ID).
     */
    public record Image(String name, String mainClass, String classPath, Map<Integer, String> portVariables) {}

    private static final String OPERATOR = "backstage-operator";
    private static final String OPERATOR_MAIN = "dev.backstage.operator.main.OperatorMain";
    private static final Map<Integer, String> OPERATOR_PORTS =
            Map.of(8081, "BACKSTAGE_HTTP_PORT", 8443, "BACKSTAGE_WEBHOOK_PORT", 8082, "BACKSTAGE_CONSOLE_PORT");

    private final Map<String, Image> images;
    /** {@code repository:tag} → a build of its own; read by the node's threads, written by a test's. */
    private final Map<String, Image> tagged = new ConcurrentHashMap<>();

    private KnownImages(Map<String, Image> images) {
        this.images = images;
    }

    /** The images, each on the class path of this JVM (which holds the operator, the runtime and the sample tasks). */
    public static KnownImages fromThisClassPath() {
        String all = System.getProperty("java.class.path");
        String withoutTasks = Arrays.stream(all.split(File.pathSeparator))
                .filter(entry -> !entry.contains("sample-tasks"))
                .collect(Collectors.joining(File.pathSeparator));
        Image operator = new Image(OPERATOR, OPERATOR_MAIN, all, OPERATOR_PORTS);
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

    /**
     * Runs {@code backstage-operator:<tag>}, whatever the registry, as the operator on {@code classPath} (another
     * build of it, such as an earlier commit's from {@code bin/pinned-operator}): same main class and ports as this
     * build's operator. Other tags keep running this build's.
     *
     * @throws IllegalArgumentException when the tag is blank or contains {@code :}, {@code /} or {@code @}, or the
     *     class path is blank
     */
    public Image registerOperator(String tag, String classPath) {
        if (tag == null || tag.isBlank() || tag.matches(".*[:/@\\s].*")) {
            throw new IllegalArgumentException(
                    "operator image tag must be a plain tag such as pinned-7e1683a, got '" + tag + "'");
        }
        if (classPath == null || classPath.isBlank()) {
            throw new IllegalArgumentException("the class path of backstage-operator:" + tag + " is empty: give the"
                    + " file bin/pinned-operator printed");
        }
        Image image = new Image(OPERATOR + ":" + tag, OPERATOR_MAIN, classPath, OPERATOR_PORTS);
        tagged.put(image.name(), image);
        return image;
    }

    /** The image a container reference names, if this node knows it: a registered tag first, else by repository. */
    public Optional<Image> resolve(String reference) {
        String repository = repositoryName(reference);
        Image exact = tagged.get(repository + ":" + tag(reference));
        return Optional.ofNullable(exact != null ? exact : images.get(repository));
    }

    /** The names this node knows, for the message of an unknown image. */
    public List<String> names() {
        return java.util.stream.Stream.concat(images.keySet().stream(), tagged.keySet().stream())
                .sorted()
                .toList();
    }

    /** {@code registry:5000/team/name:tag@sha256:…} → {@code name}. */
    static String repositoryName(String reference) {
        String last = lastElement(reference);
        int colon = last.indexOf(':');
        return colon >= 0 ? last.substring(0, colon) : last;
    }

    /** {@code registry:5000/team/name:tag@sha256:…} → {@code tag}; {@code latest} when the reference has none. */
    static String tag(String reference) {
        String last = lastElement(reference);
        int colon = last.indexOf(':');
        return colon >= 0 ? last.substring(colon + 1) : "latest";
    }

    private static String lastElement(String reference) {
        String ref = reference;
        int digest = ref.indexOf('@');
        if (digest >= 0) {
            ref = ref.substring(0, digest);
        }
        int slash = ref.lastIndexOf('/');
        return slash >= 0 ? ref.substring(slash + 1) : ref;
    }
}
