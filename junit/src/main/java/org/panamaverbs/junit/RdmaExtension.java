package org.panamaverbs.junit;

import java.lang.annotation.Annotation;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.panamaverbs.verbs.CompletionQueue;
import org.panamaverbs.verbs.Context;
import org.panamaverbs.verbs.ProtectionDomain;
import org.panamaverbs.verbs.Rdma;
import org.panamaverbs.verbs.RdmaDevice;
import org.panamaverbs.verbs.RdmaUnavailableException;

/**
 * The JUnit 5 extension behind {@link RequiresRdmaDevice} (register it through that annotation).
 *
 * <p><b>Device.</b> Chosen once per test run: the device named by the configuration parameter (or system
 * property) {@value #DEVICE_PROPERTY}, else by the environment variable {@value #DEVICE_ENV}, else the first
 * device {@code ibv_get_device_list} returns ({@code rxe0} in panama-verbs' guest). A named device that is not
 * there fails every test, naming the devices that are.
 *
 * <p><b>No device.</b> The test is disabled (reported skipped) with the reason; when {@value #REQUIRE_DEVICE_PROPERTY}
 * is {@code true} (configuration parameter or system property, e.g. {@code mvn test -Dpanamaverbs.requireDevice=true})
 * or the environment variable {@value #REQUIRE_DEVICE_ENV} is {@code true}, it runs and fails with that reason
 * instead (an {@link RdmaUnavailableException}, before any {@code @BeforeEach} method).
 *
 * <p><b>Injected parameters</b> (of test methods, {@code @BeforeEach}/{@code @AfterEach}/{@code @BeforeAll}/{@code
 * @AfterAll} methods and constructors), each closed by the extension when its scope ends:
 * <ul>
 *   <li>{@link Context}: opened with {@code ibv_open_device} on first use and shared by every test of the test
 *       class; closed after the class, which also closes whatever the tests created on it and did not close.</li>
 *   <li>{@link ProtectionDomain}: {@code ibv_alloc_pd} on the shared context, one per test (all PD parameters of
 *       one test and of its {@code @BeforeEach}/{@code @AfterEach} methods get the same one), closed after the test,
 *       together with the memory regions and queue pairs made on it. Resolved in {@code @BeforeAll}, it is one per
 *       class, and the tests of the class get that one.</li>
 *   <li>{@link CompletionQueue}: {@code ibv_create_cq} with {@value #COMPLETION_QUEUE_CAPACITY} entries and no
 *       completion channel, a new one for each parameter, closed after the test (with the queue pairs using it).
 *       {@link Completions#await} polls one.</li>
 *   <li>{@link RdmaDevice}: the chosen device, for a test that opens contexts of its own.</li>
 *   <li>{@link InetAddress}: the IP address rdma_cm resolves to the chosen device, for tests that connect: the one
 *       given by {@value #ADDRESS_PROPERTY} or {@value #ADDRESS_ENV}, else the first IPv4 address in the device's GID
 *       table (RoCE lists its interface's addresses there; for InfiniBand give the IPoIB address). A test that takes
 *       one (or whose class takes one in a constructor or lifecycle method) is skipped without an address, as without
 *       a device (or fails, when required).</li>
 * </ul>
 * Closing is idempotent, so a test may close an injected object itself.
 */
public final class RdmaExtension implements ExecutionCondition, BeforeEachCallback, ParameterResolver {
    /** The tag {@link RequiresRdmaDevice} puts on device tests. */
    public static final String TAG = "rdma-device";
    /** Environment variable naming the device to test on. */
    public static final String DEVICE_ENV = "RDMA_TEST_DEVICE";
    /** Configuration parameter (or system property) naming the device to test on; wins over {@value #DEVICE_ENV}. */
    public static final String DEVICE_PROPERTY = "panamaverbs.testDevice";
    /** Configuration parameter (or system property): {@code true} turns "skipped, no device" into a failure. */
    public static final String REQUIRE_DEVICE_PROPERTY = "panamaverbs.requireDevice";
    /** Environment variable with the meaning of {@value #REQUIRE_DEVICE_PROPERTY} (the property wins). */
    public static final String REQUIRE_DEVICE_ENV = "PANAMA_VERBS_REQUIRE_DEVICE";
    /** Environment variable with the IP address of the device's interface, for rdma_cm. */
    public static final String ADDRESS_ENV = "RDMA_TEST_ADDRESS";
    /** Configuration parameter (or system property) with that address; wins over {@value #ADDRESS_ENV}. */
    public static final String ADDRESS_PROPERTY = "panamaverbs.testAddress";
    /** Minimum number of entries of an injected completion queue. */
    public static final int COMPLETION_QUEUE_CAPACITY = 256;

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RdmaExtension.class);
    private static final String CHOICE = "device choice";
    private static final String ADDRESS = "address choice";
    private static final List<Class<? extends Annotation>> LIFECYCLE = List.of(BeforeAll.class, BeforeEach.class,
            AfterEach.class, AfterAll.class);
    private static final String CONTEXT = "context";
    private static final String PROTECTION_DOMAIN = "protection domain";

    /** Created by JUnit (through {@link RequiresRdmaDevice} or {@code @ExtendWith}). */
    public RdmaExtension() {
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext extensionContext) {
        DeviceChoice choice = choice(extensionContext);
        if (choice.device() != null) {
            AddressChoice address = needsAddress(extensionContext) ? address(extensionContext) : null;
            if (address == null || address.address() != null) {
                return ConditionEvaluationResult.enabled("RDMA device " + choice.device());
            }
            String problem = address.problem();
            if (settings(extensionContext).deviceRequired()) {
                return ConditionEvaluationResult.enabled("runs to fail: " + problem);
            }
            return ConditionEvaluationResult.disabled(problem);
        }
        if (choice.fatal()) {
            return ConditionEvaluationResult.enabled("runs to fail: " + choice.problem());
        }
        return ConditionEvaluationResult.disabled(choice.problem());
    }

    @Override
    public void beforeEach(ExtensionContext extensionContext) {
        requireDevice(choice(extensionContext));
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == Context.class || type == ProtectionDomain.class || type == CompletionQueue.class
                || type == RdmaDevice.class || type == InetAddress.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        try {
            if (type == Context.class) {
                return context(extensionContext);
            }
            if (type == RdmaDevice.class) {
                String name = requireDevice(choice(extensionContext)).device();
                return Rdma.devices().stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
            }
            if (type == InetAddress.class) {
                requireDevice(choice(extensionContext));
                AddressChoice address = address(extensionContext);
                if (address.address() == null) {
                    throw new RdmaUnavailableException(RdmaUnavailableException.Reason.NO_DEVICE, address.problem(), null);
                }
                return address.address();
            }
            ExtensionContext.Store store = extensionContext.getStore(NAMESPACE);
            if (type == ProtectionDomain.class) {
                return store.getOrComputeIfAbsent(PROTECTION_DOMAIN,
                        key -> new Closing(context(extensionContext).allocateProtectionDomain()), Closing.class)
                        .resource(ProtectionDomain.class);
            }
            CompletionQueue cq = context(extensionContext).createCompletionQueue(COMPLETION_QUEUE_CAPACITY);
            store.put(cq, new Closing(cq)); // keyed by itself: one entry per injected queue
            return cq;
        } catch (RuntimeException e) {
            throw new ParameterResolutionException("cannot inject the " + type.getSimpleName() + " parameter #"
                    + parameterContext.getIndex() + " of " + parameterContext.getDeclaringExecutable().getName() + ": "
                    + e.getMessage(), e);
        }
    }

    /** The shared context of the test class, opened on first use; closed when the class's store closes. */
    private static Context context(ExtensionContext extensionContext) {
        DeviceChoice choice = requireDevice(choice(extensionContext));
        return classContext(extensionContext).getStore(NAMESPACE)
                .getOrComputeIfAbsent(CONTEXT, key -> new Closing(Rdma.open(choice.device())), Closing.class)
                .resource(Context.class);
    }

    /** The extension context of the innermost test class around {@code extensionContext}. */
    private static ExtensionContext classContext(ExtensionContext extensionContext) {
        ExtensionContext c = extensionContext;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
            c = c.getParent().get();
        }
        return c;
    }

    private static DeviceChoice choice(ExtensionContext extensionContext) {
        return extensionContext.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(CHOICE,
                key -> DeviceChoice.decide(settings(extensionContext)), DeviceChoice.class);
    }

    private static DeviceChoice.Settings settings(ExtensionContext extensionContext) {
        return DeviceChoice.Settings.read(extensionContext::getConfigurationParameter, System::getenv);
    }

    private static AddressChoice address(ExtensionContext extensionContext) {
        return extensionContext.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(ADDRESS,
                key -> AddressChoice.decide(choice(extensionContext), extensionContext::getConfigurationParameter,
                        System::getenv), AddressChoice.class);
    }

    /**
     * Whether the test takes an {@link InetAddress}: the test method (for a method's condition), or what runs for
     * every test of the class, its constructors and its (or a superclass's) lifecycle methods.
     */
    private static boolean needsAddress(ExtensionContext extensionContext) {
        if (extensionContext.getTestMethod().map(RdmaExtension::takesAddress).orElse(false)) {
            return true;
        }
        for (Class<?> c = extensionContext.getTestClass().orElse(null); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Executable constructor : c.getDeclaredConstructors()) {
                if (takesAddress(constructor)) {
                    return true;
                }
            }
            for (Method method : c.getDeclaredMethods()) {
                if (takesAddress(method) && LIFECYCLE.stream().anyMatch(method::isAnnotationPresent)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean takesAddress(Executable executable) {
        return List.of(executable.getParameterTypes()).contains(InetAddress.class);
    }

    private static DeviceChoice requireDevice(DeviceChoice choice) {
        if (choice.device() == null) {
            throw new RdmaUnavailableException(RdmaUnavailableException.Reason.NO_DEVICE, choice.problem(), null);
        }
        return choice;
    }

    /** Closes a verbs object when JUnit closes the store holding it. */
    private record Closing(AutoCloseable resource) implements ExtensionContext.Store.CloseableResource {
        <U> U resource(Class<U> type) {
            return type.cast(resource);
        }

        @Override
        public void close() throws Exception {
            resource.close();
        }
    }
}
