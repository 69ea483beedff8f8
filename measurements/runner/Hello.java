// Prints the largest heap the virtual machine gave itself.
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB max heap");
    }
}
