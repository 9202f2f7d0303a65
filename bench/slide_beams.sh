# Sourced by bench/seam_bitwise.sh and bench/seam_instructions.sh: $slide_beams, the `vicms reduce` options of the
# coarse beam-on-beam bodies of tests/app/slide.sh (beam1 sliding on beam2, 10 modes each) into small.h5.
slide_beams="-bodies beam1,beam2 -rom_file small.h5
  -body_beam1_mesh_rect_cells 20,2 -body_beam1_mesh_rect_lengths 75,5 -body_beam1_mesh_rect_thickness 10 -body_beam1_mesh_rect_origin 50,10
  -body_beam1_mesh_rect_angle 30 -body_beam1_model_young 70000 -body_beam1_model_poisson 0.33 -body_beam1_model_density 2.7e-9
  -body_beam1_cms_contact_set xmin_ymin,xmax -body_beam1_cms_num_modes 10 -body_beam1_cms_rayleigh 12.6,3.2e-7
  -body_beam1_cms_outputs 1:x,1:y,21:y,42:y,63:y
  -body_beam2_mesh_rect_cells 20,2 -body_beam2_mesh_rect_lengths 300,10 -body_beam2_mesh_rect_thickness 10 -body_beam2_model_young 2400
  -body_beam2_model_poisson 0.37 -body_beam2_model_density 1.2e-9 -body_beam2_model_clamp xmin -body_beam2_cms_contact_set ymax
  -body_beam2_cms_num_modes 10 -body_beam2_cms_rayleigh 12.6,3.2e-7 -body_beam2_cms_outputs 63:y"
