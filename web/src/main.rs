//! Entry point of the page: mounts the app (`fabricscope_web::start`).

fn main() {
    fabricscope_web::start();
}
