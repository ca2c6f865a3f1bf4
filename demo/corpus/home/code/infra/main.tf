resource "demo_bucket" "assets" {
  name = "webshop-static-assets"
}
