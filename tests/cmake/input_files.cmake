# Input files wrong in their numbers (non-finite entries, sizes beyond the indices or the memory, a user ROM's singular K_bb or M_ii):
# refused at load with the file, the dataset and the entry, on 1, 2 (and 3) ranks.
vicms_app_test(input_files)
