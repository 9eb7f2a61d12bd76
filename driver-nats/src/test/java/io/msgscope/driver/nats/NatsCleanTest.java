package io.msgscope.driver.nats;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.driver.nats.jnats.JnatsSubscriber;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code msgscope clean} on NATS (issue 16): a MSGSCOPE_ stream a run left behind is listed by a dry run,
 * deleted by a real one, and streams msgscope did not make are never touched.
 */
class NatsCleanTest {
    @Test
    void leftoverStreamsAreListedThenDeletedAndOthersAreLeftAlone() throws Exception {
        NatsDriverTest.requireSystemServer();
        String tag = Long.toHexString(System.nanoTime());
        String ours = JnatsSubscriber.STREAM_PREFIX + "msgscope_left_" + tag;
        String theirs = "SOMEONE_ELSE_" + tag;
        try (Connection c = Nats.connect("nats://127.0.0.1:4222")) {
            JetStreamManagement jsm = c.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name(ours).subjects("msgscope.left." + tag)
                    .storageType(StorageType.Memory).build());
            jsm.addStream(StreamConfiguration.builder().name(theirs).subjects("other.left." + tag)
                    .storageType(StorageType.Memory).build());
            try {
                DriverSpec spec = new DriverSpec("", 0, "", 64, 0, Map.of(), "");
                List<String> dry = new NatsDriver().clean(spec, true);
                assertTrue(dry.stream().anyMatch(l -> l.equals("would delete JetStream stream " + ours + " at 127.0.0.1:4222")),
                        dry.toString());
                assertTrue(jsm.getStreamNames().contains(ours), "a dry run deletes nothing");
                List<String> done = new NatsDriver().clean(spec, false);
                assertTrue(done.contains("deleted JetStream stream " + ours + " at 127.0.0.1:4222"), done.toString());
                assertFalse(jsm.getStreamNames().contains(ours));
                assertTrue(jsm.getStreamNames().contains(theirs), "only msgscope's streams are removed");
                assertFalse(done.stream().anyMatch(l -> l.contains(theirs)), done.toString());
            } finally {
                jsm.deleteStream(theirs);
            }
        }
    }
}
