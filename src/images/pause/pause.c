/* The Kubernetes sandbox ("pause") image's only program: holds the pod's namespaces open until the kubelet stops
 * the sandbox. Sleeps until SIGTERM or SIGINT (then exits 0) and reaps zombies on SIGCHLD, as PID 1 of a pod that
 * shares its PID namespace must. Built static (gcc -Os -static) so the image needs nothing but this file. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int sig) { (void) sig; _exit(0); }
static void reap(int sig) { (void) sig; while (waitpid(-1, 0, WNOHANG) > 0) {} }

int main(void) {
    struct sigaction sa = {0};
    sa.sa_handler = stop;
    sigaction(SIGINT, &sa, 0);
    sigaction(SIGTERM, &sa, 0);
    sa.sa_handler = reap;
    sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
    sigaction(SIGCHLD, &sa, 0);
    for (;;) pause(); /* returns after each handled signal; TERM/INT never return */
}
