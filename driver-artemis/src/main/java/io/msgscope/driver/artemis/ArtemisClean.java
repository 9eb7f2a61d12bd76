package io.msgscope.driver.artemis;

import org.apache.activemq.artemis.api.core.ActiveMQException;
import org.apache.activemq.artemis.api.core.client.ClientMessage;
import org.apache.activemq.artemis.api.core.client.ClientRequestor;
import org.apache.activemq.artemis.api.core.management.ManagementHelper;
import org.apache.activemq.artemis.api.core.management.ResourceNames;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code msgscope clean --driver artemis}: finds, through the broker's management address, the queues and addresses
 * whose names begin with {@value #PREFIX} — every name msgscope gives on Artemis, whichever protocol made it (this
 * driver's {@code msgscope-artemis-...}, the stomp driver's {@code msgscope-stomp-...}, scenarios' {@code msgscope.}
 * topics) — and destroys them (a queue with its consumers; an address once its queues are gone). What a run leaves
 * is what a killed run could not remove: durable queues, and an anycast queue whose subscribers all died.
 */
final class ArtemisClean {
    static final String PREFIX = "msgscope";
    private static final String MANAGEMENT = "activemq.management";

    private ArtemisClean() {
    }

    static List<String> clean(ArtemisSettings settings, boolean dryRun) throws IOException {
        List<String> found = new ArrayList<>();
        try (ArtemisSession s = ArtemisSession.open(settings, "clean")) {
            ClientRequestor requestor = new ClientRequestor(s.session, MANAGEMENT);
            s.session.start();
            for (String q : msgscopeNames(call(s, requestor, "getQueueNames"))) {
                found.add("queue " + q + " at " + settings.url());
                if (!dryRun) {
                    call(s, requestor, "destroyQueue", q, true, true);
                }
            }
            for (String a : msgscopeNames(call(s, requestor, "getAddressNames"))) {
                found.add("address " + a + " at " + settings.url());
                if (!dryRun) {
                    call(s, requestor, "deleteAddress", a, true);
                }
            }
            requestor.close();
        } catch (ActiveMQException e) {
            throw new IOException("artemis: clean at " + settings.url() + " failed: " + ArtemisSession.describe(e), e);
        } catch (Exception e) {
            if (e instanceof IOException io) {
                throw io;
            }
            throw new IOException("artemis: clean at " + settings.url() + " failed: " + ArtemisSession.describe(e), e);
        }
        return found;
    }

    /** The names among a management result (an array) that msgscope gave. */
    static List<String> msgscopeNames(Object result) {
        List<String> names = new ArrayList<>();
        if (result instanceof Object[] all) {
            for (Object n : all) {
                if (n != null && n.toString().startsWith(PREFIX)) {
                    names.add(n.toString());
                }
            }
        }
        java.util.Collections.sort(names);
        return names;
    }

    /**
     * Deletes {@code address} when no queue is left on it (a subscriber's last act: Artemis 2.40 kept the addresses
     * made for msgscope's queues after the queues were gone); false when the broker refused, e.g. queues remain.
     */
    static boolean deleteAddressIfUnused(ArtemisSession s, String address) {
        try {
            ClientRequestor requestor = new ClientRequestor(s.session, MANAGEMENT);
            try {
                call(s, requestor, "deleteAddress", address, false);
                return true;
            } finally {
                requestor.close();
            }
        } catch (Exception e) {
            return false;
        }
    }

    /** Invokes a broker management operation and returns its result; a failed one throws, with the broker's words. */
    private static Object call(ArtemisSession s, ClientRequestor requestor, String operation, Object... args)
            throws Exception {
        ClientMessage m = s.session.createMessage(false);
        ManagementHelper.putOperationInvocation(m, ResourceNames.BROKER, operation, args);
        ClientMessage reply = requestor.request(m, ArtemisSession.CALL_TIMEOUT_MS);
        if (reply == null) {
            throw new IOException("artemis: no answer to " + operation + " from " + MANAGEMENT + " at "
                    + s.locator + " within " + ArtemisSession.CALL_TIMEOUT_MS + " ms");
        }
        if (!ManagementHelper.hasOperationSucceeded(reply)) {
            throw new IOException("artemis: the broker refused " + operation + ": " + ManagementHelper.getResult(reply));
        }
        return ManagementHelper.getResult(reply);
    }
}
