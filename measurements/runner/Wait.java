// Waits for a byte on its input: its memory is read from /proc/PID/status meanwhile.
public class Wait {
    public static void main(String[] args) throws Exception {
        System.out.println("waiting");
        System.in.read();
    }
}
